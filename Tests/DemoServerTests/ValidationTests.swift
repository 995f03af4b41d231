import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// Every write body field and query parameter the demo checks gets Apple's error code and status
/// (`rawCode` checks the status matches the code; 0 means success).
@Suite struct ValidationTests {
    static let uuid = "fdf964a4-233b-486c-aac1-97d8d52688ac"

    @Test func extensionBodyFields() async throws {
        let server = try await SharedDemo.get()
        let alice = try server.customer("Active monthly subscription").originalTransactionId
        func extend(_ body: String, id: String? = nil) async throws -> Int64? {
            try await server.rawCode("PUT", "/inApps/v1/subscriptions/extend/\(id ?? alice)", body: body)
        }
        let identifier = #""requestIdentifier":"r-1""#
        #expect(try await extend("not json") == 4_000_000)
        #expect(try await extend("[1]") == 4_000_000)
        #expect(try await extend(#"{"extendByDays":5,"extendReasonCode":1,\#(identifier)}"#, id: "12x") == 4_000_008)
        for days in [#""ten""#, "1.5", "0", "91", "-3", "null"] {
            #expect(try await extend(#"{"extendByDays":\#(days),"extendReasonCode":1,\#(identifier)}"#) == 4_000_009, "extendByDays \(days)")
        }
        #expect(try await extend(#"{"extendReasonCode":1,\#(identifier)}"#) == 4_000_009)
        for reason in [#""1""#, "4", "-1", "1.0"] {
            #expect(try await extend(#"{"extendByDays":5,"extendReasonCode":\#(reason),\#(identifier)}"#) == 4_000_010, "reason \(reason)")
        }
        #expect(try await extend(#"{"extendByDays":5,\#(identifier)}"#) == 4_000_010)
        for request in ["5", #""""#, "\"\(String(repeating: "x", count: 129))\""] {
            #expect(try await extend(#"{"extendByDays":5,"extendReasonCode":1,"requestIdentifier":\#(request)}"#) == 4_000_011)
        }
        #expect(try await extend(#"{"extendByDays":5,"extendReasonCode":1}"#) == 4_000_011)
    }

    @Test func massExtensionBodyFields() async throws {
        let server = try await DemoServer.start()
        let product = DemoCatalog.proMonthly.productId
        func mass(_ fields: String) async throws -> Int64? {
            try await server.rawCode("POST", "/inApps/v1/subscriptions/extend/mass", body: "{\(fields)}")
        }
        let base = #""extendByDays":3,"extendReasonCode":3"#
        // Apple requires a UUID here, unlike the single extension's free-form identifier.
        #expect(try await mass(#"\#(base),"requestIdentifier":"outage-1","productId":"\#(product)""#) == 4_000_011)
        #expect(try await mass(#"\#(base),"requestIdentifier":"\#(Self.uuid)x","productId":"\#(product)""#) == 4_000_011)
        #expect(try await mass(#"\#(base),"productId":"\#(product)""#) == 4_000_011)
        let id = #""requestIdentifier":"\#(Self.uuid)""#
        #expect(try await mass(#""extendByDays":91,"extendReasonCode":3,\#(id),"productId":"\#(product)""#) == 4_000_009)
        #expect(try await mass(#""extendByDays":0,"extendReasonCode":3,\#(id),"productId":"\#(product)""#) == 4_000_009)
        #expect(try await mass(#""extendByDays":3,"extendReasonCode":9,\#(id),"productId":"\#(product)""#) == 4_000_010)
        #expect(try await mass(#"\#(base),\#(id)"#) == 4_000_023)
        #expect(try await mass(#"\#(base),\#(id),"productId":42"#) == 4_000_023)
        #expect(try await mass(#"\#(base),\#(id),"productId":"com.iapdesk.demo.nothing""#) == 4_000_023)
        #expect(try await mass(#"\#(base),\#(id),"productId":"\#(DemoCatalog.coins100.productId)""#) == 4_000_023)
        let good = #"\#(base),\#(id),"productId":"\#(product)""#
        #expect(try await mass(#"\#(good),"storefrontCountryCodes":[]"#) == 4_000_027)
        for codes in [#"["us"]"#, #"["XYZ"]"#, #"["USA","U"]"#, #""USA""#, "[840]"] {
            #expect(try await mass(#"\#(good),"storefrontCountryCodes":\#(codes)"#) == 4_000_028, "storefronts \(codes)")
        }
        #expect(try await mass(#"\#(good),"storefrontCountryCodes":["USA","MEX"]"#) == 0)
        // The same request again, with the UUID in capitals as Apple's Swift library sends it, is the same request.
        let upper = #"\#(base),"requestIdentifier":"\#(Self.uuid.uppercased())","productId":"\#(product)","storefrontCountryCodes":["USA","MEX"]"#
        #expect(try await mass(upper) == 0)
        let status = "/inApps/v1/subscriptions/extend/mass/\(product)"
        #expect(try await server.rawCode("GET", "\(status)/\(Self.uuid.uppercased())") == 0)
        #expect(try await server.rawCode("GET", "\(status)/outage-1") == 4_000_011)
        #expect(try await server.rawCode("GET", "\(status)/\(UUID().uuidString)") == 4_040_009)
        #expect(try await server.rawCode("GET", "/inApps/v1/subscriptions/extend/mass/no%20such%21/\(Self.uuid)") == 4_000_023)
        #expect(try await server.rawCode("GET", "/inApps/v1/subscriptions/extend/mass/com.iapdesk.demo.nothing/\(Self.uuid)") == 4_000_023)
        await server.stop()
    }

    @Test func historyQueryParameters() async throws {
        let server = try await SharedDemo.get()
        let id = try server.customer("Active monthly subscription").originalTransactionId
        func history(_ query: String) async throws -> Int64? { try await server.rawCode("GET", "/inApps/v2/history/\(id)", query: query) }
        #expect(try await history("startDate=yesterday") == 4_000_015)
        #expect(try await history("startDate=1700000000000.5") == 4_000_015)
        #expect(try await history("startDate=1&startDate=2") == 4_000_015)
        #expect(try await history("endDate=-5") == 4_000_016)
        #expect(try await history("startDate=2000&endDate=1000") == 4_000_016)
        #expect(try await history("productId=bad%20id%21") == 4_000_023)
        #expect(try await history("productId=") == 4_000_023)
        #expect(try await history("productType=BOOKS") == 4_000_022)
        #expect(try await history("productType=auto_renewable") == 4_000_022)
        #expect(try await history("sort=SIDEWAYS") == 4_000_021)
        #expect(try await history("sort=ASCENDING&sort=DESCENDING") == 4_000_021)
        #expect(try await history("subscriptionGroupIdentifier=pro") == 4_000_024)
        #expect(try await history("subscriptionGroupIdentifier=") == 4_000_024)
        #expect(try await history("inAppOwnershipType=BORROWED") == 4_000_026)
        #expect(try await history("inAppOwnershipType=PURCHASED&inAppOwnershipType=FAMILY_SHARED") == 4_000_026)
        #expect(try await history("revoked=maybe") == 4_000_030)
        #expect(try await history("excludeRevoked=1") == 4_000_025)
        #expect(try await history("revision=") == 4_000_005)
        // Apple's Python library sends booleans capitalised.
        #expect(try await history("revoked=False&productId=\(DemoCatalog.proMonthly.productId)&subscriptionGroupIdentifier=\(DemoCatalog.proGroup)") == 0)
        #expect(try await server.rawCode("GET", "/inApps/v1/history/\(id)", query: "sort=UP") == 4_000_021)
    }

    @Test func statusAndRefundParameters() async throws {
        let server = try await SharedDemo.get()
        let id = try server.customer("Active monthly subscription").originalTransactionId
        for status in ["0", "6", "x", "1.0", ""] {
            #expect(try await server.rawCode("GET", "/inApps/v1/subscriptions/\(id)", query: "status=\(status)") == 4_000_031, "status \(status)")
        }
        #expect(try await server.rawCode("GET", "/inApps/v1/subscriptions/\(id)", query: "status=1&status=5") == 0)
        #expect(try await server.rawCode("GET", "/inApps/v2/refund/lookup/\(id)", query: "revision=nope") == 4_000_005)
        #expect(try await server.rawCode("GET", "/inApps/v2/refund/lookup/1%2B2") == 4_000_006)
        #expect(try await server.rawCode("GET", "/inApps/v1/lookup/MK5-TTTVWJH") == 4_000_000)
        #expect(try await server.rawCode("GET", "/inApps/v1/lookup/MK5TTTVWJH", environment: .sandbox) == 4_000_000)
    }

    @Test func notificationHistoryBodyFields() async throws {
        let server = try await SharedDemo.get()
        func history(_ body: String, token: String? = nil) async throws -> Int64? {
            try await server.rawCode("POST", "/inApps/v1/notifications/history", query: token.map { "paginationToken=\($0)" }, body: body)
        }
        let now = Date().epochMilliseconds
        let hourAgo = now - 3_600_000
        #expect(try await history("startDate=1") == 4_000_000)
        #expect(try await history(#"{"startDate":"yesterday","endDate":\#(now)}"#) == 4_000_015)
        #expect(try await history(#"{"startDate":\#(hourAgo).5,"endDate":\#(now)}"#) == 4_000_015)
        #expect(try await history(#"{"endDate":\#(now)}"#) == 4_000_015)
        #expect(try await history(#"{"startDate":\#(now + 3_600_000),"endDate":\#(now + 7_200_000)}"#) == 4_000_015)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":"now"}"#) == 4_000_016)
        #expect(try await history(#"{"startDate":\#(hourAgo)}"#) == 4_000_016)
        #expect(try await history(#"{"startDate":\#(now),"endDate":\#(hourAgo)}"#) == 4_000_013)
        #expect(try await history(#"{"startDate":\#(now),"endDate":\#(now)}"#) == 4_000_013)
        #expect(try await history(#"{"startDate":\#(now - 181 * 86_400_000),"endDate":\#(now)}"#) == 4_000_012)
        #expect(try await server.rawCode(
            "POST", "/inApps/v1/notifications/history", body: #"{"startDate":\#(now - 31 * 86_400_000),"endDate":\#(now)}"#,
            environment: .sandbox) == 4_000_012)
        // A future end date is read as now.
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now + 86_400_000)}"#) == 0)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now),"notificationType":5}"#) == 4_000_018)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now),"notificationType":"REFUND","notificationSubtype":"SUMMARY"}"#) == 4_000_018)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now),"transactionId":123}"#) == 4_000_006)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now),"transactionId":"1","notificationType":"REFUND"}"#) == 4_000_019)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now),"onlyFailures":"yes"}"#) == 4_000_000)
        #expect(try await history(#"{"startDate":\#(hourAgo),"endDate":\#(now)}"#, token: "bogus") == 4_000_014)
    }

    @Test func paginationTokensExpire() async throws {
        let server = try await SharedDemo.get()
        let client = try server.plainClient()
        let request = NotificationHistoryRequest(startDate: Date().addingTimeInterval(-30 * 86_400 + 60), endDate: Date())
        let first = try await client.getNotificationHistory(request: request)
        let token = try #require(first.paginationToken)
        _ = try await client.getNotificationHistory(paginationToken: token, request: request)
        // The same cursor issued two days ago has expired.
        let filters = String(decoding: try AppStoreJSON.encoder().encode(request), as: UTF8.self)
        let old = try #require(PagingCursor.read(token, kind: "nh", filters: filters))
        let stale = PagingCursor.make(kind: "nh", offset: old.offset, filters: filters, issued: Date().addingTimeInterval(-2 * 86_400))
        #expect(await apiError { try await client.getNotificationHistory(paginationToken: stale, request: request) }?.code == 4_000_017)
        // A token is bound to the body it was issued for.
        var other = request
        other.onlyFailures = true
        #expect(await apiError { try await client.getNotificationHistory(paginationToken: token, request: other) }?.code == 4_000_014)
    }

    @Test func consumptionBodyFields() async throws {
        let server = try await SharedDemo.get()
        let coin = server.seedIDs().consumableTransactionIds[0]
        func send(_ fields: String, id: String? = nil) async throws -> Int64? {
            try await server.rawCode("PUT", "/inApps/v2/transactions/consumption/\(id ?? coin)", body: "{\(fields)}")
        }
        let base = #""customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false"#
        #expect(try await send(base) == 0)
        #expect(try await send(base, id: "x1") == 4_000_006)
        #expect(try await send(#""customerConsented":"true","deliveryStatus":"DELIVERED","sampleContentProvided":false"#) == 4_000_035)
        #expect(try await send(#""deliveryStatus":"DELIVERED","sampleContentProvided":false"#) == 4_000_035)
        #expect(try await send(#""customerConsented":true,"deliveryStatus":1,"sampleContentProvided":false"#) == 4_000_036)
        #expect(try await send(#""customerConsented":true,"sampleContentProvided":false"#) == 4_000_036)
        #expect(try await send(#""customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":"no""#) == 4_000_041)
        #expect(try await send(#""customerConsented":true,"deliveryStatus":"DELIVERED""#) == 4_000_041)
        #expect(try await send(#"\#(base),"refundPreference":3"#) == 4_000_044)
        #expect(try await send(#"\#(base),"refundPreference":"MAYBE""#) == 4_000_044)
        #expect(try await send(#"\#(base),"consumptionPercentage":100001"#) == 4_000_000)
        #expect(try await send(#"\#(base),"consumptionPercentage":-1"#) == 4_000_000)
        #expect(try await send(#"\#(base),"consumptionPercentage":50.5"#) == 4_000_000)
        #expect(try await send(#""customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","sampleContentProvided":false,"consumptionPercentage":1000"#) == 4_000_000)
        #expect(try await send(#""customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","sampleContentProvided":false,"consumptionPercentage":0"#) == 0)
    }

    @Test func consumptionV1BodyFields() async throws {
        let server = try await SharedDemo.get()
        let coin = server.seedIDs().consumableTransactionIds[0]
        let fields: [(String, String)] = [
            ("customerConsented", "true"), ("consumptionStatus", "1"), ("platform", "1"), ("sampleContentProvided", "false"),
            ("deliveryStatus", "0"), ("appAccountToken", #""""#), ("accountTenure", "2"), ("playTime", "3"),
            ("lifetimeDollarsRefunded", "0"), ("lifetimeDollarsPurchased", "4"), ("userStatus", "1"), ("refundPreference", "1"),
        ]
        func send(replacing key: String? = nil, with value: String? = nil) async throws -> Int64? {
            let body = fields.compactMap { name, original -> String? in
                guard name == key else { return "\"\(name)\":\(original)" }
                return value.map { "\"\(name)\":\($0)" }
            }
            return try await server.rawCode("PUT", "/inApps/v1/transactions/consumption/\(coin)", body: "{\(body.joined(separator: ","))}")
        }
        #expect(try await send() == 0)
        let wrong: [(String, String, Int64)] = [
            ("customerConsented", "false", 4_000_035), ("customerConsented", "1", 4_000_035),
            ("consumptionStatus", "4", 4_000_034), ("consumptionStatus", #""1""#, 4_000_034),
            ("platform", "3", 4_000_039), ("platform", #""2""#, 4_000_039),
            ("sampleContentProvided", "0", 4_000_041), ("deliveryStatus", "6", 4_000_036),
            ("appAccountToken", #""not-a-uuid""#, 4_000_033), ("appAccountToken", "5", 4_000_033),
            ("accountTenure", "8", 4_000_032), ("playTime", "8", 4_000_040), ("lifetimeDollarsRefunded", "8", 4_000_038),
            ("lifetimeDollarsPurchased", "8", 4_000_037), ("userStatus", "5", 4_000_042), ("refundPreference", "4", 4_000_044),
        ]
        for (key, value, code) in wrong {
            #expect(try await send(replacing: key, with: value) == code, "\(key) = \(value)")
        }
        // Every field is expected; a missing one is refused with its own code.
        #expect(try await send(replacing: "platform", with: nil) == 4_000_039)
        #expect(try await send(replacing: "appAccountToken", with: nil) == 4_000_033)
    }

    @Test func appAccountTokenAndTestNotificationFields() async throws {
        let server = try await SharedDemo.get()
        let bob = try server.customer("Auto-renew turned off").originalTransactionId
        let path = "/inApps/v1/transactions/\(bob)/appAccountToken"
        for token in ["12", #""""#, #""7389a31a-fb6d-4569-a2a6-db7d85d8481""#, #""{7389a31a-fb6d-4569-a2a6-db7d85d84813}""#, "null"] {
            #expect(try await server.rawCode("PUT", path, body: #"{"appAccountToken":\#(token)}"#) == 4_000_183, "token \(token)")
        }
        #expect(try await server.rawCode("PUT", path, body: "nope") == 4_000_000)
        #expect(try await server.rawCode("PUT", "/inApps/v1/transactions/b0b/appAccountToken", body: #"{"appAccountToken":"\#(Self.uuid)"}"#) == 4_000_006)
    }

    /// Apple: a token that is not one (not a UUID) is 400 InvalidTestNotificationTokenError; a UUID
    /// it never issued (or whose result has expired) is 404 TestNotificationNotFoundError, in both environments.
    @Test(arguments: [AppStoreEnvironment.production, .sandbox])
    func testNotificationTokens(environment: AppStoreEnvironment) async throws {
        let server = try await SharedDemo.get()
        let path = "/inApps/v1/notifications/test/"
        let uuid = Self.uuid
        for malformed in ["abc", uuid.replacingOccurrences(of: "-", with: ""), "{\(uuid)}", uuid + "0", String(uuid.dropLast()), "%20", uuid + "_", uuid + "_12x", uuid + "_1704906337263_1", "_1704906337263"] {
            #expect(try await server.rawCode("GET", path + malformed, environment: environment) == 4_000_020, "token \(malformed)")
        }
        for unknown in [uuid, uuid.uppercased(), UUID().uuidString, uuid + "_1704906337263"] {
            #expect(try await server.rawCode("GET", path + unknown, environment: environment) == 4_040_008, "token \(unknown)")
        }
    }

    @Test func storefrontCodesAreISO() {
        #expect(CountryCodes.alpha3.count == 250)
        #expect(["USA", "FRA", "JPN", "MEX", "CAN", "GBR", "DEU"].allSatisfy(RouteValidation.isStorefront))
        #expect(!["US", "usa", "UK", "EUR", "ZZZ"].contains(where: RouteValidation.isStorefront))
    }
}
