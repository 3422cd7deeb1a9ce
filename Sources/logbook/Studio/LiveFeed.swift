import Dispatch
import Foundation
import LogStore
import Logbook
import Synchronization

/// Follows the store's saves through the change feed that `logbook changes --follow` reads
/// (``ModelContainer/historyReader(after:follow:values:)``), opens the store again when another
/// process saved, and tells every open page (Server-Sent Events, ``Subscription``).
///
/// Thread safety: `Sendable`; a thread of its own reads the feed.
final class LiveFeed: Sendable {
    private let session: StoreSession
    private let subscribers = Locked<[Subscription]>([])
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    /// Pages following at once; more are refused (each holds a connection and a thread).
    static let maximumSubscribers = 32
    /// How often the feed looks for new saves.
    static let pollInterval = Duration.milliseconds(100)

    /// Starts following `session`'s store.
    init(session: StoreSession) {
        self.session = session
        Thread.detachNewThread { [self] in
            follow()
            stopped.signal()
        }
    }

    /// A new subscription to the events, or `nil` when too many pages follow already.
    func subscribe() -> Subscription? {
        subscribers.withLock { subscribers in
            subscribers.removeAll { $0.isClosed }
            guard subscribers.count < Self.maximumSubscribers,
                !stopping.load(ordering: .relaxed)
            else { return nil }
            let subscription = Subscription()
            subscribers.append(subscription)
            return subscription
        }
    }

    /// Stops following and ends every subscription.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiring) else { return }
        stopped.wait()
        subscribers.withLock { subscribers in
            for subscription in subscribers { subscription.close() }
            subscribers.removeAll()
        }
    }

    private func follow() {
        var reader: HistoryReader?
        var token: HistoryToken?
        while !stopping.load(ordering: .relaxed) {
            do {
                if reader == nil {
                    let container = session.current.container
                    token = try token ?? container.currentHistoryToken
                    reader = try container.historyReader(after: token, follow: true)
                }
                var event = SaveEvent()
                while event.saves < 1000, let save = try reader!.nextSummary() {
                    event.add(save)
                }
                token = reader!.token
                guard event.saves > 0 else {
                    pause()
                    continue
                }
                try session.refresh()
                // A reader of the new container, so that the old one can go.
                if !session.writable { reader = nil }
                broadcast(event.json)
            } catch LogbookError.historyNotRecorded {
                return  // a store without history has no feed to follow
            } catch {
                // History compacted away before it was read, or a store that does not open
                // for now: start again from the state as it is, and have pages reload.
                reader = nil
                token = nil
                try? session.refresh()
                broadcast(SaveEvent().json)
                pause(.seconds(1))
            }
        }
    }

    private func pause(_ duration: Duration = LiveFeed.pollInterval) {
        let end = ContinuousClock.now + duration
        while !stopping.load(ordering: .relaxed) && ContinuousClock.now < end {
            usleep(20_000)
        }
    }

    private func broadcast(_ event: String) {
        subscribers.withLock { subscribers in
            subscribers.removeAll { $0.isClosed }
            for subscription in subscribers { subscription.post(event) }
        }
    }
}

/// What one event tells the pages: the saves seen since the last one, added up.
private struct SaveEvent {
    var saves = 0
    var sequence: UInt64 = 0
    var inserted = 0
    var updated = 0
    var deleted = 0
    var entities: [String] = []

    mutating func add(_ save: HistorySaveSummary) {
        saves += 1
        sequence = save.sequence
        inserted += save.insertCount
        updated += save.updateCount
        deleted += save.deleteCount
        for entity in save.entities where !entities.contains(entity) { entities.append(entity) }
    }

    /// `{"saves":1,"sequence":9,"inserted":1,…,"entities":["Employee"]}`; no saves means
    /// "the state changed in a way the feed could not follow: reload".
    var json: String {
        "{\"saves\":\(saves),\"sequence\":\(sequence),\"inserted\":\(inserted),"
            + "\"updated\":\(updated),\"deleted\":\(deleted),\"entities\":["
            + entities.map(Formatting.quoted).joined(separator: ",") + "]}"
    }
}

/// One page's queue of events. Posting never blocks: past a bound, the oldest events are
/// dropped (a page only needs to know that it must reload).
///
/// Thread safety: `Sendable`; the feed posts, the page's connection thread takes.
final class Subscription: Sendable {
    private let queue = Locked<(events: [String], closed: Bool)>(([], false))
    private let signal = DispatchSemaphore(value: 0)
    private static let maximumQueued = 16

    var isClosed: Bool { queue.withLock { $0.closed } }

    func post(_ event: String) {
        queue.withLock { queue in
            queue.events.append(event)
            if queue.events.count > Self.maximumQueued { queue.events.removeFirst() }
        }
        signal.signal()
    }

    /// The next event, waiting up to `timeout`; `nil` when none came (or it is closed).
    func next(timeout: Duration) -> String? {
        let nanoseconds =
            timeout.components.seconds * 1_000_000_000
            + timeout.components.attoseconds / 1_000_000_000
        _ = signal.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
        return queue.withLock { queue in
            queue.events.isEmpty ? nil : queue.events.removeFirst()
        }
    }

    /// Ends the subscription (its page's stream ends at its next wait).
    func close() {
        queue.withLock { $0.closed = true }
        signal.signal()
    }
}
