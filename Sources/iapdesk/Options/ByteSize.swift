/// Sizes as options take them: bytes, or K, M, G (KiB, MiB, GiB).
enum ByteSize {
    static func parse(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        var unit = 1
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) } else if digits.hasSuffix("B") { digits = digits.dropLast() }
        if let last = digits.last, let multiplier = units[last] {
            unit = multiplier
            digits = digits.dropLast()
        }
        guard let value = Int(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : product
    }

    static func describe(_ bytes: Int) -> String {
        for (suffix, unit) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes >= unit && bytes % unit == 0 {
            return "\(bytes / unit)\(suffix)"
        }
        return "\(bytes)"
    }
}
