@testable import AppStoreServerAPI
import Foundation
import FuzzSupport

/// Any answer (status, Retry-After, body) becomes exactly one kind of error or a value: Apple's
/// error code and message come from the body, a Retry-After is a real time, and every error can be
/// shown (summary, hint) without failing.
///
/// Input: two bytes of status, one byte of Retry-After length, the Retry-After text, then the body.
@main enum FuzzAPIErrorBody {
    static let endpoint = Endpoints.getTransactionInfo(transactionId: "2000000123")

    static func main() {
        Fuzz.run { buffer in
            var input = FuzzInput(buffer)
            let status = 100 + input.int(below: 500)
            let retryAfter = String(decoding: input.bytes(input.int(below: 48)), as: UTF8.self)
            let body = Data(input.rest())
            var headers = ["Content-Type": "application/json"]
            if !retryAfter.isEmpty { headers["Retry-After"] = retryAfter }
            check(HTTPResponse(status: status, headers: headers, body: body))
        }
    }

    static func check(_ response: HTTPResponse) {
        let result = AppStoreServerClient.interpret(response, for: endpoint)
        switch (response.status, result) {
        case (200..<300, .success(let value)):
            invariant((try? AppStoreJSON.decode(TransactionInfoResponse.self, from: response.body)) == value, "success value differs from the body")
        case (200..<300, .failure(.decoding(let name, _))):
            invariant(name == endpoint.name, "decoding error names \(name)")
        case (401, .failure(.unauthorized(let body))):
            invariant((body?.utf8.count ?? 0) <= 200, "401 keeps more than the start of the body")
        case (let status, .failure(.server(let failure))) where !(200..<300).contains(status) && status != 401:
            checkServer(failure, response)
        default:
            invariant(false, "status \(response.status) interpreted as \(result)")
        }
        if case .failure(let error) = result {
            invariant(!error.summary.isEmpty && !error.hint.isEmpty && !error.description.isEmpty, "an error that cannot be shown")
            _ = error.isRetryable
            _ = error.isTransactionNotFound
        }
    }

    static func checkServer(_ failure: ServerFailure, _ response: HTTPResponse) {
        invariant(failure.status == response.status, "status \(failure.status) for \(response.status)")
        let payload = try? AppStoreJSON.decode(ErrorPayload.self, from: response.body)
        invariant(failure.code?.rawValue == payload?.errorCode, "code \(String(describing: failure.code)) for body \(String(describing: payload))")
        invariant(failure.message == payload?.errorMessage, "message differs from the body")
        if let code = failure.code {
            invariant(APIErrorCode(rawValue: code.rawValue) == code, "code \(code.rawValue) does not map back")
            invariant(code.httpStatus == Int(code.rawValue / 10_000), "HTTP status of \(code.rawValue)")
        }
        let header = response.header("Retry-After")
        invariant((failure.retryAfter == nil) == (header.flatMap(AppStoreServerClient.parseRetryAfter) == nil), "Retry-After read twice differently")
        if let retryAfter = failure.retryAfter {
            invariant(retryAfter.timeIntervalSince1970.isFinite, "Retry-After \(header ?? "") read as no real time")
        }
    }
}
