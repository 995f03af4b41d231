@testable import AppStoreServerAPI
import Foundation
import Testing

/// Apple's rules for retention images and messages, each broken on its own.
@Suite struct RetentionRuleTests {
    let id = UUID()

    @Test func aGoodFullSizeAndBulletPointPassAndTheCRCIsPNGs() {
        #expect(RetentionImageCheck.violations(RetentionImageCheck.samplePNG(width: 3840, height: 400), as: .fullSize).isEmpty)
        #expect(RetentionImageCheck.violations(RetentionImageCheck.samplePNG(width: 3840, height: 160), as: nil).isEmpty)
        #expect(RetentionImageCheck.violations(RetentionImageCheck.samplePNG(width: 1024, height: 1024, colorType: 3), as: .bulletPoint).isEmpty)
        // The CRC-32 of "IEND" every PNG ends with.
        #expect(RetentionImageCheck.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func eachImageRuleIsNamed() {
        func check(_ png: Data, _ size: ImageSize) -> [RetentionImageCheck.Violation] { RetentionImageCheck.violations(png, as: size) }
        #expect(check(Data(), .fullSize) == [.empty])
        #expect(check(Data("GIF89a....".utf8), .fullSize) == [.notPNG])
        #expect(check(RetentionImageCheck.samplePNG(width: 3840, height: 400, colorType: 6), .fullSize)
            == [.alphaChannel(colorType: "RGB with alpha (RGBA)")])
        #expect(check(RetentionImageCheck.samplePNG(width: 3840, height: 400, colorType: 4), .fullSize)
            == [.alphaChannel(colorType: "greyscale with alpha")])
        #expect(check(RetentionImageCheck.samplePNG(width: 3840, height: 400, transparentColor: true), .fullSize) == [.transparentColor])
        #expect(check(RetentionImageCheck.samplePNG(width: 1920, height: 400), .fullSize) == [.fullSizeWidth(width: 1920, height: 400)])
        #expect(check(RetentionImageCheck.samplePNG(width: 3840, height: 159), .fullSize) == [.fullSizeHeight(width: 3840, height: 159)])
        #expect(check(RetentionImageCheck.samplePNG(width: 3840, height: 2161), .fullSize) == [.fullSizeHeight(width: 3840, height: 2161)])
        #expect(check(RetentionImageCheck.samplePNG(width: 3840, height: 400), .bulletPoint) == [.bulletPointSize(width: 3840, height: 400)])
        #expect(RetentionImageCheck.Violation.bulletPointSize(width: 3840, height: 400).appleCode == .badRequestImageSize)
        #expect(RetentionImageCheck.Violation.transparentColor.appleCode == .invalidImage)
    }

    @Test func aDamagedPNGSaysWhere() {
        var bytes = [UInt8](RetentionImageCheck.samplePNG(width: 3840, height: 400))
        bytes[20] ^= 0xFF // inside IHDR's width
        guard case .damaged(let detail)? = RetentionImageCheck.violations(Data(bytes), as: .fullSize).first else {
            Issue.record("a changed byte must be caught")
            return
        }
        #expect(detail.contains("IHDR"))
        let cut = RetentionImageCheck.samplePNG(width: 3840, height: 400).prefix(40)
        #expect(RetentionImageCheck.violations(cut, as: .fullSize).first?.description.contains("damaged") == true)
    }

    @Test func eachMessageRuleHasApplesCode() {
        let long = String(repeating: "x", count: 67)
        func codes(_ message: UploadMessageRequestBody) -> [APIErrorCode] { message.violations.map(\.code) }
        #expect(codes(UploadMessageRequestBody(header: String(repeating: "é", count: 66), body: String(repeating: "b", count: 144))).isEmpty)
        #expect(codes(UploadMessageRequestBody(header: long, body: "b")) == [.headerTooLong])
        #expect(codes(UploadMessageRequestBody(header: "h", body: String(repeating: "b", count: 145))) == [.bodyTooLong])
        #expect(codes(UploadMessageRequestBody(header: "h", body: "b",
            image: UploadMessageImage(imageIdentifier: id, altText: String(repeating: "a", count: 151)))) == [.altTextTooLong])
        let six = (0..<6).map { _ in BulletPoint(text: "t", imageIdentifier: id, altText: "a") }
        #expect(codes(UploadMessageRequestBody(header: "h", body: "b", bulletPoints: six)) == [.badRequestTooManyBulletPoints])
        #expect(codes(UploadMessageRequestBody(header: "h", body: "b", bulletPoints: [BulletPoint(text: long, imageIdentifier: id, altText: "a")]))
            == [.badRequestBulletPointTextTooLong])
        #expect(codes(UploadMessageRequestBody(header: "h", body: "b", headerPosition: .aboveImage)) == [.badRequestAboveImageRequiresAnImage])
        #expect(UploadMessageRequestBody(header: long, body: "b").violations.first?.description == "The header is 67 characters; Apple allows 66.")
    }

    @Test func realtimeURLAndLocaleRules() {
        #expect(RealtimeUrlRequest(realtimeURL: "https://example.com/retention").violation == nil)
        #expect(RealtimeUrlRequest(realtimeURL: "http://example.com/retention").violation?.description.contains("https://") == true)
        #expect(RealtimeUrlRequest(realtimeURL: "example.com").violation?.code == .badRequestRealtimeUrl)
        #expect(RealtimeUrlRequest(realtimeURL: "https://example.com/" + String(repeating: "a", count: 237)).violation?.code == .badRequestRealtimeUrl)
        #expect(RealtimeUrlRequest(realtimeURL: "https://example.com/" + String(repeating: "a", count: 236)).violation == nil)
        for good in ["en-US", "fr-FR", "zh-Hans-CN", "haw-US"] { #expect(RetentionLocale.isValid(good), "\(good)") }
        for bad in ["en", "english-US", "en_US", "en-USA", "", "e1-US"] { #expect(!RetentionLocale.isValid(bad), "\(bad)") }
    }
}
