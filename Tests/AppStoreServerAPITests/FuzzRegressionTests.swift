@testable import AppStoreServerAPI
import Foundation
import Testing

/// Inputs the fuzz targets found (Fuzz/, docs/fuzzing.md), each with what it broke.
@Suite struct FuzzRegressionTests {
    /// FuzzModels: a date past Int64 milliseconds decoded, then trapped when encoded.
    @Test func aDateMoreThan10000YearsFrom1970IsADecodingError() throws {
        do throws(JSONDecodeFailure) {
            _ = try AppStoreJSON.decode(TransactionPayload.self, from: Data(#"{"signedDate":9814880000092233720}"#.utf8))
            Issue.record("decoded a date in the year 311 million")
        } catch {
            #expect(error.path == "signedDate")
        }
        #expect(throws: JSONDecodeFailure.self) {
            try AppStoreJSON.decode(TransactionPayload.self, from: Data(#"{"signedDate":315569520000001}"#.utf8))
        }
        let last = try AppStoreJSON.decode(TransactionPayload.self, from: Data(#"{"signedDate":315569519999999}"#.utf8))
        #expect(last.signedDate?.epochMilliseconds == 315_569_519_999_999)
        let first = try AppStoreJSON.decode(TransactionPayload.self, from: Data(#"{"signedDate":-315569520000000}"#.utf8))
        #expect(try AppStoreJSON.decode(TransactionPayload.self, from: AppStoreJSON.encoder().encode(first)) == first)
    }

    /// FuzzModels: a date eight thousand years out came back a millisecond early: its noise in a
    /// Double is more than the thousandth of a millisecond that was allowed for.
    @Test func aFarDateKeepsItsMillisecondThroughARoundTrip() throws {
        for text in [#"{"signedDate":281248892233720}"#, #"{"signedDate":281248892233719}"#, #"{"signedDate":-281248892233720}"#] {
            let value = try AppStoreJSON.decode(TransactionPayload.self, from: Data(text.utf8))
            let encoded = try AppStoreJSON.encoder().encode(value)
            #expect(String(decoding: encoded, as: UTF8.self) == text)
            #expect(try AppStoreJSON.decode(TransactionPayload.self, from: encoded) == value)
        }
        // Near 1970 a fraction of a millisecond is still cut, not rounded.
        #expect(Date(timeIntervalSince1970: 1.0006).epochMilliseconds == 1000)
    }

    /// FuzzAPIErrorBody: Retry-After "1e400" became a date at infinity.
    @Test func aRetryAfterThatIsNoTimeIsIgnored() {
        #expect(AppStoreServerClient.parseRetryAfter("1e400") == nil)
        #expect(AppStoreServerClient.parseRetryAfter("inf") == nil)
        let response = HTTPResponse(status: 429, headers: ["Retry-After": "1e400"], body: Data(#"{"errorCode":4290000}"#.utf8))
        guard case .failure(.server(let failure)) = AppStoreServerClient.interpret(response, for: Endpoints.getTransactionInfo(transactionId: "1")) else {
            Issue.record("a 429 is a server error")
            return
        }
        #expect(failure.retryAfter == nil)
        #expect(failure.code == .rateLimitExceeded)
    }

    /// FuzzJWSSplitter: trailing whitespace after U+0600 (which joins the character after it) was kept.
    @Test func whitespaceIsTrimmedAfterAJoiningCharacter() throws {
        let jws = try CompactJWS("a.b.c\u{600} \n")
        #expect(jws.signatureSegment == "c\u{600}")
        #expect(jws.text == "a.b.c\u{600}")
    }
}
