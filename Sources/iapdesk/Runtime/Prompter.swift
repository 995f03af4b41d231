import Foundation

/// Plain questions on standard output, answers read a line at a time from standard input: a
/// terminal, or a pipe (scripts and tests answer the same prompts line by line).
struct Prompter {
    /// No more lines: standard input ended before the answer.
    struct EndOfInput: Error {}

    let isTerminal: Bool

    init(isTerminal: Bool = isatty(STDIN_FILENO) == 1) {
        self.isTerminal = isTerminal
    }

    func say(_ text: String) {
        print(text)
        fflush(nil)
    }

    /// One line, without its newline. Piped answers are echoed so the transcript reads like a session.
    func ask(_ question: String) throws -> String {
        print(question, terminator: "")
        fflush(nil)
        guard let line = readLine(strippingNewline: true) else {
            print("")
            throw EndOfInput()
        }
        if !isTerminal { print(line) }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// Asks until `check` accepts the answer (or Enter takes `defaultValue`), saying why each
    /// refused answer was refused.
    /// When standard input ends, the value in brackets stands as Enter would keep it; with none,
    /// or one that is refused, `EndOfInput` is thrown.
    func ask<Value>(_ label: String, default defaultValue: String?, check: (String) -> Result<Value, PromptRefusal>) throws -> Value {
        while true {
            let shown = defaultValue.map { " [\($0)]" } ?? ""
            var answer: String
            var ended = false
            do {
                answer = try ask("\(label)\(shown): ")
            } catch is EndOfInput {
                guard let defaultValue else { throw EndOfInput() }
                say("  (standard input ended: \(defaultValue) is kept)")
                answer = defaultValue
                ended = true
            }
            if answer.isEmpty, let defaultValue { answer = defaultValue }
            switch check(answer) {
            case .success(let value): return value
            case .failure(let refusal):
                say("  ✗ \(refusal.reason).\(ended ? "" : " Try again.")")
                if ended { throw EndOfInput() }
            }
        }
    }

    /// y/yes is yes; anything else, or no more input, is no.
    func confirm(_ question: String) -> Bool {
        guard let answer = try? ask("\(question) [y/N] ") else { return false }
        return ["y", "yes"].contains(answer.lowercased())
    }
}

/// Why an answer was refused, said to the user before asking again.
struct PromptRefusal: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
