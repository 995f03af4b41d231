extension TOMLParser {
    /// An integer, a float or a date-time: the run of characters they are made of, then checked whole.
    mutating func numberOrDate() throws(TOMLError) -> TOMLValue {
        let start = index
        func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
            Self.isBareKey(scalar) || scalar == "+" || scalar == "." || scalar == ":"
        }
        while let scalar = current, isTokenScalar(scalar) { index += 1 }
        // A date and a time may be separated by a space instead of a T.
        if index - start == 10, current == " ", let next = peek(1), ("0"..."9").contains(next), Self.isDate(scalars[start..<index]) {
            index += 1
            while let scalar = current, isTokenScalar(scalar) { index += 1 }
        }
        let token = String(String.UnicodeScalarView(scalars[start..<index]))
        guard !token.isEmpty else { throw failure("expected a value, found \(current.map(Self.shown) ?? "the end of the text")") }
        if let value = Self.number(token) { return value }
        if Self.isDateTime(token) { return .dateTime(token) }
        index = start
        throw failure("\(token) is not a value (a string needs quotes)")
    }

    static func number(_ token: String) -> TOMLValue? {
        let unsigned = token.first == "+" || token.first == "-" ? token.dropFirst() : Substring(token)
        if unsigned == "inf" || unsigned == "nan" {
            return .float(token.first == "-" ? -Double(String(unsigned))! : Double(String(unsigned))!)
        }
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where token.hasPrefix(prefix) {
            let digits = token.dropFirst(2)
            guard grouped(digits, { $0.properties.isASCIIHexDigit && Int(String($0), radix: radix) != nil }),
                  let value = Int64(digits.filter { $0 != "_" }, radix: radix)
            else { return nil }
            return .integer(value)
        }
        // Decimal: no leading zeros, underscores only between digits.
        let exponentAt = unsigned.firstIndex { $0 == "e" || $0 == "E" }
        let mantissa = unsigned[..<(exponentAt ?? unsigned.endIndex)]
        let dot = mantissa.firstIndex(of: ".")
        let whole = mantissa[..<(dot ?? mantissa.endIndex)]
        guard grouped(whole, isDigit), whole == "0" || whole.first != "0" else { return nil }
        if let dot, !grouped(mantissa[mantissa.index(after: dot)...], isDigit) { return nil }
        if let exponentAt {
            var exponent = unsigned[unsigned.index(after: exponentAt)...]
            if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
            guard grouped(exponent, isDigit) else { return nil }
        }
        let plain = token.filter { $0 != "_" }
        if dot == nil && exponentAt == nil {
            return Int64(plain).map(TOMLValue.integer)
        }
        return Double(plain).map(TOMLValue.float)
    }

    /// Digits with single underscores between them.
    private static func grouped(_ text: Substring, _ isDigit: (Unicode.Scalar) -> Bool) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last, isDigit(first), isDigit(last) else { return false }
        var previousIsUnderscore = false
        for scalar in text.unicodeScalars {
            if scalar == "_" {
                if previousIsUnderscore { return false }
                previousIsUnderscore = true
            } else {
                guard isDigit(scalar) else { return false }
                previousIsUnderscore = false
            }
        }
        return true
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// `1979-05-27`, `07:32:00.5`, `1979-05-27T07:32:00Z`, `1979-05-27 07:32:00-07:00`.
    static func isDateTime(_ token: String) -> Bool {
        let scalars = Array(token.unicodeScalars)
        if scalars.count >= 8, scalars[2] == ":" { return isTime(scalars[...], offset: false) }
        guard scalars.count >= 10, isDate(scalars[..<10]) else { return false }
        if scalars.count == 10 { return true }
        guard ["T", "t", " "].contains(scalars[10]) else { return false }
        return isTime(scalars[11...], offset: true)
    }

    static func isDate(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        guard scalars.count == 10, let year = decimal(scalars, 0, 4), scalars[scalars.startIndex + 4] == "-",
              let month = decimal(scalars, 5, 2), scalars[scalars.startIndex + 7] == "-", let day = decimal(scalars, 8, 2),
              (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    /// `HH:MM:SS` with an optional fraction, then (when `offset`) an optional `Z` or `±HH:MM`.
    private static func isTime(_ scalars: ArraySlice<Unicode.Scalar>, offset: Bool) -> Bool {
        let s = scalars.startIndex
        guard scalars.count >= 8, let hour = decimal(scalars, 0, 2), scalars[s + 2] == ":", let minute = decimal(scalars, 3, 2),
              scalars[s + 5] == ":", let second = decimal(scalars, 6, 2), hour < 24, minute < 60, second <= 60
        else { return false }
        var rest = scalars.dropFirst(8)
        if rest.first == "." {
            let digits = rest.dropFirst().prefix { isDigit($0) }
            guard !digits.isEmpty else { return false }
            rest = rest.dropFirst(1 + digits.count)
        }
        if rest.isEmpty { return true }
        guard offset else { return false }
        if rest.count == 1 { return rest.first == "Z" || rest.first == "z" }
        guard rest.count == 6, rest.first == "+" || rest.first == "-", let hours = decimal(rest, 1, 2),
              rest[rest.startIndex + 3] == ":", let minutes = decimal(rest, 4, 2)
        else { return false }
        return hours < 24 && minutes < 60
    }

    /// The decimal number of `count` digits at `offset`, or nil when they are not all digits.
    private static func decimal(_ scalars: ArraySlice<Unicode.Scalar>, _ offset: Int, _ count: Int) -> Int? {
        let start = scalars.startIndex + offset
        guard start + count <= scalars.endIndex else { return nil }
        var value = 0
        for scalar in scalars[start..<start + count] {
            guard isDigit(scalar) else { return nil }
            value = value * 10 + Int(scalar.value - 48)
        }
        return value
    }
}
