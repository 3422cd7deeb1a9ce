import Foundation

extension PostgreSQLConnection {
    /// Subscribes to `channel` (`LISTEN`); its notifications wait for
    /// ``nextNotification(timeout:)``.
    package func listen(_ channel: String) throws {
        try simpleQuery("LISTEN \(Self.identifier(channel))")
    }

    /// Ends the subscription to `channel` (`UNLISTEN`).
    package func unlisten(_ channel: String) throws {
        try simpleQuery("UNLISTEN \(Self.identifier(channel))")
    }

    /// Sends a notification on `channel` (`pg_notify`): delivered when the current
    /// transaction commits, or at once outside one.
    package func notify(_ channel: String, payload: String = "") throws {
        try query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// The next notification: one already received (during an earlier request), else the
    /// first to arrive within `timeout` (`nil` waits without limit). `nil` if none came.
    ///
    /// Waiting reads only what the server sends while the connection is idle: notifications,
    /// notices, parameter changes, and the error that ends a session (thrown, like a lost
    /// connection).
    package func nextNotification(timeout: Duration?) throws -> PostgreSQLNotification? {
        if let notification = dequeueNotification() { return notification }
        return try request {
            let deadline = WireDeadline.after(timeout)
            while true {
                guard let message = try stream.next(until: deadline) else { return nil }
                guard try handleAsynchronous(message) else {
                    throw unexpected(message, "a wait for notifications")
                }
                if let notification = dequeueNotification() { return notification }
            }
        }
    }

    /// How many notifications have arrived and wait to be taken.
    package var pendingNotificationCount: Int { pendingNotifications.count - notificationHead }

    /// A double-quoted SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
