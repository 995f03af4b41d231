import AppStoreServerAPI
import Foundation

// The parts every demo notification shares, so the dataset and the live routes build them alike.
extension NotificationPayload {
    static func demo(_ type: NotificationType, _ subtype: NotificationSubtype?, uuid: String, signedDate: Date) -> NotificationPayload {
        var payload = NotificationPayload()
        payload.notificationType = type
        payload.subtype = subtype
        payload.notificationUUID = uuid
        payload.version = "2.0"
        payload.signedDate = signedDate
        return payload
    }
}

extension NotificationData {
    /// The app's identity in an environment (all a TEST notification carries); the app Apple ID is
    /// given in Production only, as Apple does.
    static func demoApp(_ environment: AppStoreEnvironment) -> NotificationData {
        var data = NotificationData()
        data.environment = environment
        data.appAppleId = environment == .production ? DemoCatalog.appAppleId : nil
        data.bundleId = DemoCatalog.bundleId
        return data
    }
}
