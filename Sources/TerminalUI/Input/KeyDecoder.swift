/// What a terminal library hands over: a decoded key, or a plain character that may be part of a
/// sequence the library did not recognise.
public enum RawKey: Sendable, Equatable {
    case key(Key)
    case scalar(Unicode.Scalar)
}

/// Turns raw input into keys: bracketed pastes (ESC [200~ ... ESC [201~) become one `.paste`,
/// control characters become named keys, ESC is Escape unless it starts a CSI/SS3 sequence.
public enum KeyDecoder {
    static let pasteStart: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "0", "~"]
    static let pasteEnd: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]

    public static func decode(_ raw: [RawKey]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        func scalars(at start: Int, count: Int) -> [Unicode.Scalar]? {
            guard start + count <= raw.count else { return nil }
            var out: [Unicode.Scalar] = []
            for item in raw[start..<start + count] {
                guard case .scalar(let s) = item else { return nil }
                out.append(s)
            }
            return out
        }
        while index < raw.count {
            if scalars(at: index, count: 6) == pasteStart {
                var text = String.UnicodeScalarView()
                var cursor = index + 6
                while cursor < raw.count, scalars(at: cursor, count: 6) != pasteEnd {
                    if case .scalar(let s) = raw[cursor] { text.append(s) }
                    if case .key(.enter) = raw[cursor] { text.append("\n") }
                    cursor += 1
                }
                keys.append(.paste(String(text)))
                index = min(raw.count, cursor + 6)
                continue
            }
            switch raw[index] {
            case .key(let key): keys.append(key)
            case .scalar(let scalar):
                if scalar == "\u{1B}" {
                    // ESC followed by more characters in the same read is an unrecognised sequence or Alt-key.
                    if case .scalar(let next)? = raw.dropFirst(index + 1).first, next == "[" || next == "O" {
                        var cursor = index + 2
                        while cursor < raw.count, case .scalar(let s) = raw[cursor], !(s.value >= 0x40 && s.value <= 0x7E) { cursor += 1 }
                        index = cursor + 1
                        continue
                    }
                    // Anything else after ESC is a separate key pressed right after Escape.
                    keys.append(.escape)
                } else {
                    keys.append(named(scalar))
                }
            }
            index += 1
        }
        return keys
    }

    static func named(_ scalar: Unicode.Scalar) -> Key {
        switch scalar.value {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x7F, 0x08: return .backspace
        case 0x01...0x1A: return .control(Character(Unicode.Scalar(scalar.value + 0x60)!))
        default: return .character(Character(scalar))
        }
    }
}
