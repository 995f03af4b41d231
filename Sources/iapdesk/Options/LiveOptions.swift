import ArgumentParser
import Foundation

/// The console's Live pane options: a receiver inside the console, the store it reads, and where `r` replays to.
struct LiveOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Receive notifications inside the console at this address (such as 127.0.0.1:8080); they show in the Live pane.", valueName: "host:port"))
    var listen: String?
    @Option(name: .long, help: ArgumentHelp("Where the Live pane's r replays a notification (the app's own endpoint); the receiver also forwards there.", valueName: "url"))
    var forwardTo: String?
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        if let listen { guard (try? ListenAddress.split(listen)) != nil else { throw ValidationError("--listen must be host:port, such as 127.0.0.1:8080.") } }
        if let forwardTo {
            guard let url = URL(string: forwardTo), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--forward-to must be an http(s) URL.")
            }
        }
    }

    var forwardURL: URL? { forwardTo.flatMap(URL.init(string:)) }
}
