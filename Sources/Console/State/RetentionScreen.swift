import AppStoreServerAPI
import DeskCore
import Foundation

/// `:retention`'s own state, kept in `ConsoleState.models`: what it asks about, and what it read.
public struct RetentionScreen: PaneModel {
    /// The products the console knows from its set-up: the demo's subscription products (empty for
    /// a profile, whose products come from what is on screen).
    public var catalogProducts: [String] = []
    /// The locales default messages are asked in (`retention_locales`, else en-US).
    public var locales: [String] = RetentionScreen.defaultLocales
    /// Where the products asked came from, in words for the screen.
    public var productsSource = ""
    /// Products known but not asked, past `RetentionReads.maxSlots`.
    public var productsLeftOut = 0
    public var overview: RetentionOverview?
    /// The read running; answers to any other are dropped.
    public var request: Int?
    /// The first line shown (the screen scrolls when it does not fit).
    public var scroll = 0

    public static let defaultLocales = ["en-US"]

    public init() {}
}

extension ConsoleState {
    public var retention: RetentionScreen {
        get { models[RetentionScreen.self] }
        set { models[RetentionScreen.self] = newValue }
    }
}
