import AppStoreServerAPI
import Foundation

extension ProfileParsing {
    public static func environmentFlag(_ text: String) throws(ConfigurationError) -> AppStoreEnvironment {
        try environment(text, source: "--environment")
    }

    public static func urlFlag(_ text: String) throws(ConfigurationError) -> URL {
        try url(text, source: "--base-url")
    }

    public static func timeoutFlag(_ seconds: Double) throws(ConfigurationError) -> TimeInterval {
        try timeout(seconds, source: "--timeout")
    }
}
