#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An address range in CIDR notation (`17.0.0.0/8`, `::1/128`, or one address): peers in one of
/// the receiver's unlimited ranges are not held to its per-peer limits.
public struct PeerRange: Sendable, Equatable, CustomStringConvertible {
    let network: [UInt8]
    let prefixLength: Int

    /// Loopback, where a reverse proxy on the same machine connects from.
    public static let loopback: [PeerRange] = [PeerRange("127.0.0.0/8")!, PeerRange("::1/128")!]
    /// Where Apple's servers send App Store Server Notifications from, as Apple documents it.
    public static let apple = PeerRange("17.0.0.0/8")!

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let length: Int
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bytes.count * 8).contains(given) else { return nil }
            length = given
        } else {
            length = bytes.count * 8
        }
        network = Self.masked(bytes, length)
        prefixLength = length
    }

    public var description: String {
        let text = network.count == 4 ? network.map(String.init).joined(separator: ".") : Self.ipv6Text(network)
        return "\(text)/\(prefixLength)"
    }

    /// Whether the address (as `SocketAddress.ipAddress` gives it) is in the range; an IPv4 address
    /// mapped into IPv6 (`::ffff:17.1.2.3`) counts as the IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(of: address) else { return false }
        if bytes.count == 16, network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        return bytes.count == network.count && Self.masked(bytes, prefixLength) == network
    }

    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = max(0, min(8, length - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8(0xFF) >> bits)
        }
    }

    static func ipv6Text(_ bytes: [UInt8]) -> String {
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
