extension TOMLParser {
    /// `"…"` with escapes, on one line.
    mutating func basicString() throws(TOMLError) -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while let scalar = current {
            switch scalar {
            case "\"":
                index += 1
                return String(text)
            case "\\":
                text.append(try escape())
            case _ where Self.isControl(scalar):
                throw failure("\(Self.shown(scalar)) in a string (escape it, or use \"\"\" for several lines)")
            default:
                text.append(scalar)
                index += 1
            }
        }
        throw failure("the string is not closed")
    }

    /// `'…'` as written, on one line.
    mutating func literalString() throws(TOMLError) -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while let scalar = current {
            if scalar == "'" {
                index += 1
                return String(text)
            }
            if Self.isControl(scalar) { throw failure("\(Self.shown(scalar)) in a literal string") }
            text.append(scalar)
            index += 1
        }
        throw failure("the string is not closed")
    }

    /// `"""…"""` or `'''…'''`: a line end right after the opening quotes is dropped, and in the basic
    /// form a backslash at the end of a line drops that line end and the blanks after it.
    mutating func multilineString(literal: Bool) throws(TOMLError) -> String {
        let quote = current!
        index += 3
        if current == "\n" { index += 1 } else if current == "\r" && peek(1) == "\n" { index += 2 }
        var text = String.UnicodeScalarView()
        while let scalar = current {
            switch scalar {
            case quote:
                var run = 0
                while current == quote { run += 1; index += 1 }
                if run < 3 {
                    text.append(contentsOf: Array(repeating: quote, count: run))
                    continue
                }
                guard run <= 5 else { throw failure("too many quotes at the end of the string") }
                text.append(contentsOf: Array(repeating: quote, count: run - 3))
                return String(text)
            case "\\" where !literal:
                if try skipLineEndingBackslash() { continue }
                text.append(try escape())
            case "\n":
                text.append(scalar)
                index += 1
            case "\r" where peek(1) == "\n":
                text.append(contentsOf: ["\r", "\n"])
                index += 2
            case _ where Self.isControl(scalar):
                throw failure("\(Self.shown(scalar)) in a string")
            default:
                text.append(scalar)
                index += 1
            }
        }
        throw failure("the string is not closed")
    }

    /// A backslash followed by blanks and a line end: skips it and all blanks and line ends after it.
    private mutating func skipLineEndingBackslash() throws(TOMLError) -> Bool {
        var next = index + 1
        while next < scalars.count, scalars[next] == " " || scalars[next] == "\t" { next += 1 }
        guard next < scalars.count, scalars[next] == "\n" || (scalars[next] == "\r" && next + 1 < scalars.count && scalars[next + 1] == "\n") else {
            return false
        }
        index = next
        while let scalar = current, [" ", "\t", "\n"].contains(scalar) || (scalar == "\r" && peek(1) == "\n") { index += 1 }
        return true
    }

    /// `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`.
    private mutating func escape() throws(TOMLError) -> Unicode.Scalar {
        index += 1
        guard let letter = current else { throw failure("the string is not closed") }
        index += 1
        switch letter {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let count = letter == "u" ? 4 : 8
            guard index + count <= scalars.count, scalars[index..<index + count].allSatisfy({ $0.properties.isASCIIHexDigit }),
                  let value = UInt32(String(String.UnicodeScalarView(scalars[index..<index + count])), radix: 16),
                  let scalar = Unicode.Scalar(value)
            else { throw failure("\\\(letter) needs \(count) hex digits naming a Unicode scalar") }
            index += count
            return scalar
        default:
            throw failure("unknown escape \\\(letter)")
        }
    }
}
