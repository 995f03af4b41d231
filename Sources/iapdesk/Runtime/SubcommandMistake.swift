import ArgumentParser

/// A mistyped subcommand of a command made of subcommands (`retention image list`): ArgumentParser
/// then complains about whatever follows it ("Unknown option '--demo'"). When parsing fails, the
/// arguments are walked down the command tree; a word that is no subcommand of a group without a
/// default one is named, with the subcommands the group has and the one it looks like.
enum SubcommandMistake {
    /// The message for `arguments` (without the program's name), or nil when no subcommand was mistyped.
    static func message(_ arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root.configuration.commandName ?? ""]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { $0.configuration.commandName == word || $0.configuration.aliases.contains(word) }) {
                command = next
                path.append(word)
                continue
            }
            // A group with a default subcommand hands it what follows; ArgumentParser reports that.
            guard command.configuration.defaultSubcommand == nil else { return nil }
            let names = subcommands.compactMap { $0.configuration.commandName }
            let group = path.joined(separator: " ")
            if word.hasPrefix("-") {
                guard !["-h", "--help", "--version"].contains(word) else { return nil }
                return "\(group) needs a subcommand before \(word): \(names.joined(separator: ", "))."
            }
            let near = nearest(to: word, in: names).map { " Did you mean '\(group) \($0)'?" } ?? ""
            return "Unknown subcommand '\(word)' of \(group), which has \(names.joined(separator: ", ")).\(near)"
        }
        return nil
    }

    /// The subcommand `word` was most likely meant as: one it begins or that begins with it
    /// (image for images), else one at most two letters away.
    static func nearest(to word: String, in names: [String]) -> String? {
        let word = word.lowercased()
        if let related = names.first(where: { $0.hasPrefix(word) || word.hasPrefix($0) }) { return related }
        return names.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance: letters added, removed or changed.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1]
            for j in b.indices {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
