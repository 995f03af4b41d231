/// Reads a fuzz input as a stream of choices; an exhausted input reads as zeros, so every input
/// means something and shorter inputs mean simpler runs.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ buffer: UnsafeRawBufferPointer) {
        self.bytes = Array(buffer)
    }

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { position >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// 0..<count (count > 0), from one byte, or two when count exceeds 256.
    public mutating func int(below count: Int) -> Int {
        precondition(count > 0)
        if count <= 256 { return Int(byte()) % count }
        return (Int(byte()) << 8 | Int(byte())) % count
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    public mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[int(below: elements.count)]
    }

    /// The next `count` bytes (fewer at the end of the input).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, count))
        defer { position = max(position, end) }
        return position < end ? Array(bytes[position..<end]) : []
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        bytes(bytes.count - position)
    }
}
