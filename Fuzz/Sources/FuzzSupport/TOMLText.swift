/// Writes TOML values back as text, for round trips through the config and theme loaders.
public enum TOMLText {
    /// A basic string: quotes, backslashes and control characters escaped, everything else as is.
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Any key, quoted.
    public static func key(_ text: String) -> String { string(text) }
}
