import ArgumentParser

/// A `host:port` to listen on, IPv6 hosts in brackets (`[::1]:8080`): `listen --address` and
/// `--metrics-address`, and the console's `--listen`.
enum ListenAddress {
    static func split(_ address: String) throws -> (host: String, port: Int) {
        var host: Substring
        var portText: Substring
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            host = address[address.index(after: address.startIndex)..<close]
            let rest = address[address.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ValidationError("no port") }
            portText = rest.dropFirst()
        } else {
            guard let colon = address.lastIndex(of: ":") else { throw ValidationError("no port") }
            host = address[..<colon]
            portText = address[address.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { throw ValidationError("bad address") }
        return (String(host), port)
    }
}
