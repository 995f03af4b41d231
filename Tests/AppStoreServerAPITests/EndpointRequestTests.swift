@testable import AppStoreServerAPI
import Crypto
import Foundation
import Testing

/// Every endpoint, through an injected transport: what goes on the wire and how answers are read.
@Suite struct EndpointRequestTests {
    let base = "https://api.storekit.apple.com"

    func run<T>(
        _ reply: MockTransport.Reply, environment: ServerEnvironment = .production,
        _ call: (AppStoreServerClient) async throws(APIError) -> T
    ) async throws -> (T, HTTPRequest) {
        let transport = MockTransport([reply])
        let value = try await call(try TestCredentials.client(transport, environment: environment, retry: .none))
        return (value, try #require(transport.lastRequest))
    }

    func body(_ request: HTTPRequest) -> String? { request.body.map { String(decoding: $0, as: UTF8.self) } }

    @Test func getTransactionInfo() async throws {
        let (value, request) = try await run(MockTransport.fixture("transactionInfoResponse")) { client throws(APIError) in
            try await client.getTransactionInfo(transactionId: " 2000000123 ")
        }
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "\(base)/inApps/v1/transactions/2000000123")
        #expect(request.body == nil)
        #expect(request.header("Content-Type") == nil)
        #expect(value.signedTransactionInfo == "signed_transaction_info_value")
    }

    @Test func getTransactionHistoryWithEveryFilter() async throws {
        let query = TransactionHistoryQuery(
            startDate: Date(epochMilliseconds: Int64(123_455)), endDate: Date(epochMilliseconds: Int64(123_456)),
            productIds: ["com.example.1", "com.example.2"], productTypes: [.consumable, .autoRenewable], sort: .ascending,
            subscriptionGroupIdentifiers: ["sub_group_id", "sub_group_id_2"], inAppOwnershipType: .familyShared, revoked: false)
        let (value, request) = try await run(MockTransport.fixture("transactionHistoryResponse")) { client throws(APIError) in
            try await client.getTransactionHistory(anyTransactionId: "1234", revision: "revision_input", query: query)
        }
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "\(base)/inApps/v2/history/1234?revision=revision_input&startDate=123455&endDate=123456&productId=com.example.1&productId=com.example.2&productType=CONSUMABLE&productType=AUTO_RENEWABLE&sort=ASCENDING&subscriptionGroupIdentifier=sub_group_id&subscriptionGroupIdentifier=sub_group_id_2&inAppOwnershipType=FAMILY_SHARED&revoked=false")
        #expect(value.revision == "revision_output")
    }

    @Test func getTransactionHistoryV1() async throws {
        let (_, request) = try await run(MockTransport.fixture("transactionHistoryResponse")) { client throws(APIError) in
            try await client.getTransactionHistoryV1(transactionId: "1234", query: .init(sort: .descending))
        }
        #expect(request.url.absoluteString == "\(base)/inApps/v1/history/1234?sort=DESCENDING")
    }

    @Test func getAllSubscriptionStatuses() async throws {
        let (value, request) = try await run(MockTransport.fixture("getAllSubscriptionStatusesResponse")) { client throws(APIError) in
            try await client.getAllSubscriptionStatuses(anyTransactionId: "4321", status: [.expired, .active])
        }
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "\(base)/inApps/v1/subscriptions/4321?status=2&status=1")
        #expect(value.data?.count == 2)
    }

    @Test func getRefundHistory() async throws {
        let (value, request) = try await run(MockTransport.fixture("getRefundHistoryResponse")) { client throws(APIError) in
            try await client.getRefundHistory(anyTransactionId: "555555", revision: "revision_input")
        }
        #expect(request.url.absoluteString == "\(base)/inApps/v2/refund/lookup/555555?revision=revision_input")
        #expect(value.hasMore == true)
    }

    @Test func lookUpOrderId() async throws {
        let (value, request) = try await run(MockTransport.fixture("lookupOrderIdResponse")) { client throws(APIError) in
            try await client.lookUpOrderId(orderId: "W002182")
        }
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "\(base)/inApps/v1/lookup/W002182")
        #expect(value.status == .invalid)
    }

    @Test func lookUpOrderIdInSandboxIsRefusedWithoutARequest() async throws {
        let transport = MockTransport()
        let client = try TestCredentials.client(transport, environment: .sandbox)
        do {
            _ = try await client.lookUpOrderId(orderId: "MK5TTTVWJH")
            Issue.record("sandbox order lookup must be refused")
        } catch {
            #expect(error.summary.contains("Production only"))
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func extendSubscriptionRenewalDate() async throws {
        let request = ExtendRenewalDateRequest(extendByDays: 45, extendReasonCode: .customerSatisfaction, requestIdentifier: "fdf964a4-233b-486c-aac1-97d8d52688ac")
        let (value, sent) = try await run(MockTransport.fixture("extendSubscriptionRenewalDateResponse")) { client throws(APIError) in
            try await client.extendSubscriptionRenewalDate(originalTransactionId: "124", request: request)
        }
        #expect(sent.method == "PUT")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/subscriptions/extend/124")
        #expect(sent.header("Content-Type") == "application/json")
        #expect(body(sent) == #"{"extendByDays":45,"extendReasonCode":1,"requestIdentifier":"fdf964a4-233b-486c-aac1-97d8d52688ac"}"#)
        #expect(value.effectiveDate?.epochMilliseconds == 1_698_148_900_000)
    }

    @Test func extendRenewalDateForAllActiveSubscribers() async throws {
        let request = MassExtendRenewalDateRequest(
            extendByDays: 45, extendReasonCode: .customerSatisfaction, requestIdentifier: "fdf964a4-233b-486c-aac1-97d8d52688ac",
            storefrontCountryCodes: ["USA", "MEX"], productId: "com.example.productId")
        let (value, sent) = try await run(MockTransport.fixture("extendRenewalDateForAllActiveSubscribersResponse")) { client throws(APIError) in
            try await client.extendRenewalDateForAllActiveSubscribers(request: request)
        }
        #expect(sent.method == "POST")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/subscriptions/extend/mass")
        #expect(body(sent) == #"{"extendByDays":45,"extendReasonCode":1,"productId":"com.example.productId","requestIdentifier":"fdf964a4-233b-486c-aac1-97d8d52688ac","storefrontCountryCodes":["USA","MEX"]}"#)
        #expect(value.requestIdentifier == "758883e8-151b-47b7-abd0-60c4d804c2f5")
    }

    @Test func getStatusOfSubscriptionRenewalDateExtensions() async throws {
        let (value, sent) = try await run(MockTransport.fixture("getStatusOfSubscriptionRenewalDateExtensionsResponse")) { client throws(APIError) in
            try await client.getStatusOfSubscriptionRenewalDateExtensions(productId: "com.example.product", requestIdentifier: "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        }
        #expect(sent.method == "GET")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/subscriptions/extend/mass/com.example.product/20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(value.succeededCount == 30)
    }

    @Test func getNotificationHistory() async throws {
        let request = NotificationHistoryRequest(
            startDate: Date(epochMilliseconds: Int64(1_698_148_900_000)), endDate: Date(epochMilliseconds: Int64(1_698_148_950_000)),
            notificationType: .subscribed, notificationSubtype: .initialBuy, transactionId: "999733843", onlyFailures: true)
        let (value, sent) = try await run(MockTransport.fixture("getNotificationHistoryResponse")) { client throws(APIError) in
            try await client.getNotificationHistory(paginationToken: "a036bc0e-52b8-4bee-82fc-8c24cb6715d6", request: request)
        }
        #expect(sent.method == "POST")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/notifications/history?paginationToken=a036bc0e-52b8-4bee-82fc-8c24cb6715d6")
        #expect(body(sent) == #"{"endDate":1698148950000,"notificationSubtype":"INITIAL_BUY","notificationType":"SUBSCRIBED","onlyFailures":true,"startDate":1698148900000,"transactionId":"999733843"}"#)
        #expect(value.notificationHistory?.count == 2)
    }

    @Test func requestTestNotification() async throws {
        let (value, sent) = try await run(MockTransport.fixture("requestTestNotificationResponse")) { client throws(APIError) in
            try await client.requestTestNotification()
        }
        #expect(sent.method == "POST")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/notifications/test")
        #expect(sent.body == nil)
        #expect(sent.header("Content-Type") == nil)
        #expect(value.testNotificationToken == "ce3af791-365e-4c60-841b-1674b43c1609")
    }

    @Test func getTestNotificationStatus() async throws {
        let (value, sent) = try await run(MockTransport.fixture("getTestNotificationStatusResponse")) { client throws(APIError) in
            try await client.getTestNotificationStatus(testNotificationToken: "8cd2974c-f905-492a-bf9a-b2f47c791d19")
        }
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/notifications/test/8cd2974c-f905-492a-bf9a-b2f47c791d19")
        #expect(value.sendAttempts?.count == 2)
    }

    @Test func sendConsumptionInformation() async throws {
        let request = ConsumptionRequest(customerConsented: true, consumptionPercentage: 50000, deliveryStatus: .delivered, refundPreference: .grantFull, sampleContentProvided: false)
        let (_, sent) = try await run(.response(HTTPResponse(status: 202))) { client throws(APIError) in
            try await client.sendConsumptionInformation(transactionId: "49571273", request: request)
        }
        #expect(sent.method == "PUT")
        #expect(sent.url.absoluteString == "\(base)/inApps/v2/transactions/consumption/49571273")
        #expect(body(sent) == #"{"consumptionPercentage":50000,"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_FULL","sampleContentProvided":false}"#)
    }

    @Test func sendConsumptionInformationV1() async throws {
        var request = ConsumptionRequestV1()
        request.customerConsented = true
        request.consumptionStatus = .notConsumed
        request.platform = .nonApple
        request.sampleContentProvided = false
        request.deliveryStatus = .didNotDeliverDueToServerOutage
        request.appAccountToken = "7389a31a-fb6d-4569-a2a6-db7d85d84813"
        request.accountTenure = .thirtyDaysToNinetyDays
        request.playTime = .oneDayToFourDays
        request.lifetimeDollarsRefunded = .oneThousandDollarsToOneThousandNineHundredNinetyNineDollarsAndNinetyNineCents
        request.lifetimeDollarsPurchased = .twoThousandDollarsOrGreater
        request.userStatus = .limitedAccess
        request.refundPreference = .noPreference
        let (_, sent) = try await run(.response(HTTPResponse(status: 202))) { client throws(APIError) in
            try await client.sendConsumptionInformationV1(transactionId: "49571273", request: request)
        }
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/transactions/consumption/49571273")
        #expect(body(sent) == #"{"accountTenure":4,"appAccountToken":"7389a31a-fb6d-4569-a2a6-db7d85d84813","consumptionStatus":1,"customerConsented":true,"deliveryStatus":3,"lifetimeDollarsPurchased":7,"lifetimeDollarsRefunded":6,"platform":2,"playTime":5,"refundPreference":3,"sampleContentProvided":false,"userStatus":4}"#)
    }

    @Test func setAppAccountToken() async throws {
        let (_, sent) = try await run(.response(HTTPResponse(status: 200))) { client throws(APIError) in
            try await client.setAppAccountToken(originalTransactionId: "49571273", request: .init(appAccountToken: "7389a31a-fb6d-4569-a2a6-db7d85d84813"))
        }
        #expect(sent.method == "PUT")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/transactions/49571273/appAccountToken")
        #expect(body(sent) == #"{"appAccountToken":"7389a31a-fb6d-4569-a2a6-db7d85d84813"}"#)
    }

    @Test func getAppTransactionInfo() async throws {
        let (value, sent) = try await run(MockTransport.fixture("appTransactionInfoResponse")) { client throws(APIError) in
            try await client.getAppTransactionInfo(anyTransactionId: "1234")
        }
        #expect(sent.method == "GET")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/transactions/appTransactions/1234")
        #expect(value.signedAppTransactionInfo != nil)
    }

    @Test func finishTransaction() async throws {
        let (_, sent) = try await run(.response(HTTPResponse(status: 200))) { client throws(APIError) in
            try await client.finishTransaction(transactionId: "1234")
        }
        #expect(sent.method == "POST")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/transactions/1234/finish")
        #expect(sent.body == nil)
    }

    @Test func pathSegmentsAreEncodedAndIDsChecked() async throws {
        let (_, sent) = try await run(MockTransport.fixture("transactionInfoResponse")) { client throws(APIError) in
            try await client.getTransactionInfo(transactionId: "12/../34?x#y")
        }
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/transactions/12%2F..%2F34%3Fx%23y")
        let client = try TestCredentials.client(MockTransport())
        await #expect(throws: APIError.invalidRequest("The transaction ID is empty.")) {
            try await client.getTransactionInfo(transactionId: "   ")
        }
        await #expect(throws: APIError.self) { try await client.getTransactionInfo(transactionId: "12\u{7}34") }
    }

    @Test func customBaseURLKeepsItsPath() async throws {
        let custom = ServerEnvironment(environment: .production, baseURL: URL(string: "http://127.0.0.1:8080/prefix/")!)
        let (_, sent) = try await run(MockTransport.fixture("transactionInfoResponse"), environment: custom) { client throws(APIError) in
            try await client.getTransactionInfo(transactionId: "1")
        }
        #expect(sent.url.absoluteString == "http://127.0.0.1:8080/prefix/inApps/v1/transactions/1")
    }

    @Test func everyRequestIsAuthenticated() async throws {
        let (_, sent) = try await run(MockTransport.fixture("transactionInfoResponse")) { client throws(APIError) in
            try await client.getTransactionInfo(transactionId: "1")
        }
        let authorization = try #require(sent.header("Authorization"))
        #expect(authorization.hasPrefix("Bearer "))
        #expect(sent.header("Accept") == "application/json")
        #expect(sent.header("User-Agent")?.hasPrefix("iapdesk/") == true)
        let token = String(authorization.dropFirst("Bearer ".count))
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONValue.parse(Base64URL.decode(parts[0])!)
        #expect(header["alg"] == .string("ES256"))
        #expect(header["kid"] == .string("2X9R4HXF34"))
        #expect(header["typ"] == .string("JWT"))
        let claims = try JSONValue.parse(Base64URL.decode(parts[1])!)
        #expect(claims["aud"] == .string("appstoreconnect-v1"))
        #expect(claims["iss"] == .string("57246542-96fe-1a63-e053-0824d011072a"))
        #expect(claims["bid"] == .string("com.example"))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(parts[2])!)
        #expect(TestCredentials.key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }
}

/// Status codes and bodies turned into the right `APIError`.
@Suite struct ErrorMappingTests {
    func failure(_ reply: MockTransport.Reply) async throws -> APIError {
        let client = try TestCredentials.client(MockTransport([reply]), retry: .none)
        do {
            _ = try await client.getTransactionInfo(transactionId: "1234")
        } catch {
            return error
        }
        Issue.record("the call should have failed")
        return .cancelled
    }

    @Test func knownCodesAreNamedWithAHint() async throws {
        let error = try await failure(MockTransport.fixture("transactionIdNotFoundError", status: 404))
        guard case .server(let server) = error else { Issue.record("expected a server error"); return }
        #expect(server.status == 404)
        #expect(server.code == .transactionIdNotFound)
        #expect(server.message == "Transaction id not found.")
        #expect(error.summary.contains("TransactionIdNotFoundError (4040010)"))
        #expect(error.hint.contains("Sandbox"))
        #expect(error.isTransactionNotFound)
        #expect(!error.isRetryable)
    }

    @Test func everyFixtureErrorMapsToItsCode() async throws {
        let expected: [(String, Int, APIErrorCode)] = [
            ("invalidTransactionIdError", 400, .invalidTransactionId),
            ("transactionIdNotOriginalTransactionId", 400, .transactionIdNotOriginalTransactionId),
            ("invalidAppAccountTokenUUIDError", 400, .invalidAppAccountTokenUUID),
            ("familyTransactionNotSupportedError", 400, .familyTransactionNotSupported),
            ("appTransactionDoesNotExistError", 404, .appTransactionDoesNotExist),
            ("apiException", 500, .generalInternal),
            ("apiTooManyRequestsException", 429, .rateLimitExceeded),
        ]
        for (name, status, code) in expected {
            guard case .server(let server) = try await failure(MockTransport.fixture(name, status: status)) else {
                Issue.record("\(name) must be a server error"); continue
            }
            #expect(server.code == code, "\(name)")
            #expect(server.status == status)
        }
    }

    @Test func unknownCodeIsKeptRaw() async throws {
        let error = try await failure(MockTransport.fixture("apiUnknownError", status: 400))
        guard case .server(let server) = error else { Issue.record("expected a server error"); return }
        #expect(server.code == .unknown(9_990_000))
        #expect(server.code?.rawValue == 9_990_000)
        #expect(error.summary.contains("Testing error."))
        #expect(error.summary.contains("9990000"))
    }

    @Test func unauthorizedIsExplained() async throws {
        let error = try await failure(.response(HTTPResponse(status: 401)))
        #expect(error == .unauthorized(statusBody: nil))
        #expect(error.hint.contains("key ID"))
        #expect(error.hint.contains("issuer ID"))
        #expect(error.hint.contains("bundle ID"))
        #expect(error.hint.contains("clock"))
    }

    @Test func nonJSONErrorBodiesKeepTheStatus() async throws {
        let error = try await failure(.response(HTTPResponse(status: 502, headers: ["Content-Type": "text/html"], body: Data("<html>bad gateway</html>".utf8))))
        guard case .server(let server) = error else { Issue.record("expected a server error"); return }
        #expect(server.status == 502)
        #expect(server.code == nil)
        #expect(error.summary.hasPrefix("HTTP 502"))
    }

    @Test func malformedSuccessBodyIsADecodingError() async throws {
        let truncated = try await failure(MockTransport.json(200, #"{"signedTransactionInfo": "abc"#))
        guard case .decoding(let endpoint, _) = truncated else { Issue.record("expected a decoding error, got \(truncated)"); return }
        #expect(endpoint == "Get Transaction Info")
        let wrongType = try await failure(MockTransport.json(200, #"{"signedTransactionInfo": 12}"#))
        guard case .decoding(_, let detail) = wrongType else { Issue.record("expected a decoding error"); return }
        #expect(detail.path == "signedTransactionInfo")
    }

    @Test func transportFailuresStayTransportFailures() async throws {
        let error = try await failure(.failure(TransportFailure(kind: .timedOut, detail: "no answer")))
        #expect(error == .transport(TransportFailure(kind: .timedOut, detail: "no answer")))
        #expect(error.summary.contains("timed out"))
    }

    @Test func catalogueCoversAppleCodes() {
        #expect(APIErrorCatalog.entries.count == 92)
        #expect(APIErrorCatalog.advancedCommerce.count == 66)
        #expect(Set(APIErrorCode.all.map(\.rawValue)).count == APIErrorCode.all.count)
        #expect(Set(APIErrorCode.all.map(\.name)).count == APIErrorCode.all.count)
        for entry in APIErrorCode.all {
            #expect(APIErrorCode(rawValue: entry.rawValue) == entry.code)
            #expect(entry.code.httpStatus == Int(entry.rawValue / 10_000))
            #expect(!entry.explanation.isEmpty && !entry.hint.isEmpty)
        }
        #expect(APIErrorCode.all.filter(\.retryable).map(\.rawValue).sorted() == [4_040_002, 4_040_004, 4_040_006, 4_290_000, 5_000_001])
    }
}
