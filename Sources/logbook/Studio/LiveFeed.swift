import Dispatch
import Foundation
import LogStore
import Logbook
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the studio's view of the store current, and tells open pages of each save.
///
/// While a page follows (`/events`), the feed is the one `logbook changes --follow` reads
/// (``ModelContainer/historyReader(after:follow:values:)``): each save is read, the store is
/// opened again when another process saved (a read-only open is a snapshot), and every
/// following page gets an event (Server-Sent Events, ``Subscription``). While none follows,
/// the feed is not read (its first read scans the newest segment from its start): a look at the
/// store's files every tenth of a second tells when to open the store again, so that a page
/// loaded later shows the store as it is.
///
/// Thread safety: `Sendable`; a thread of its own does this.
final class LiveFeed: Sendable {
    private let session: StoreSession
    private let subscribers = Locked<[Subscription]>([])
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    /// The sequence the feed has read to (0 while it reads nothing).
    private let position = Atomic<UInt64>(0)
    /// Pages following at once; more are refused (each holds a connection and a thread).
    static let maximumSubscribers = 32
    /// How often the feed looks for new saves.
    static let pollInterval = Duration.milliseconds(100)
    /// The least time between two opens of the store.
    static let refreshInterval = Duration.seconds(1)

    /// Starts following `session`'s store.
    init(session: StoreSession) {
        self.session = session
        Thread.detachNewThread { [self] in
            follow()
            stopped.signal()
        }
    }

    /// A new subscription to the events, or `nil` when too many pages follow already. `seen`
    /// is the last sequence the subscriber's page shows (by default, what the store shows now):
    /// the events tell of the saves after it, at once if the store shows more already.
    func subscribe(seen: UInt64? = nil) -> Subscription? {
        let shown = max(
            session.current.container.store.lastSequence, position.load(ordering: .relaxed))
        return subscribers.withLock { subscribers in
            subscribers.removeAll { $0.isClosed }
            guard subscribers.count < Self.maximumSubscribers,
                !stopping.load(ordering: .relaxed)
            else { return nil }
            let subscription = Subscription(seen: seen ?? shown)
            if let seen, seen < shown { subscription.post(SaveEvent().json, through: shown) }
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
        var files = StoreSignature(of: session.path)
        var refreshed = ContinuousClock.now
        var hasHistory = true
        /// Opens the store again, at most once a second (each open of a store another process
        /// writes rebuilds its index).
        func refresh() throws {
            pause(until: refreshed + Self.refreshInterval)
            try session.refresh()
            refreshed = ContinuousClock.now
        }
        while !stopping.load(ordering: .relaxed) {
            // The oldest state a following page shows: the feed reads the saves after it.
            let seen = subscribers.withLock { $0.filter { !$0.isClosed }.map(\.seen).min() }
            do {
                guard let seen, hasHistory else {
                    reader = nil
                    position.store(0, ordering: .relaxed)
                    let now = StoreSignature(of: session.path)
                    if now != files {
                        try refresh()
                        files = now
                        // Without history, pages only learn that the store changed.
                        let sequence = session.current.container.store.lastSequence
                        if seen != nil { broadcast(SaveEvent().json, through: sequence) }
                    }
                    pause()
                    continue
                }
                if reader == nil {
                    let container = session.current.container
                    let identifier = try container.currentHistoryToken.storeIdentifier
                    reader = try container.historyReader(
                        after: HistoryToken(storeIdentifier: identifier, sequence: seen),
                        follow: true)
                }
                var event = SaveEvent()
                while event.saves < 1000, let save = try reader!.nextSummary() {
                    event.add(save)
                }
                let sequence = reader!.token.sequence
                position.store(sequence, ordering: .relaxed)
                // The reader maps the segments it reads: let their pages go.
                session.current.container.store.releaseMappedPages()
                guard event.saves > 0 else {
                    pause()
                    continue
                }
                files = StoreSignature(of: session.path)
                try refresh()
                // A reader of the new container, so that the old one can go.
                if !session.writable { reader = nil }
                broadcast(event.json, through: sequence)
            } catch LogbookError.historyNotRecorded {
                reader = nil
                hasHistory = false
            } catch {
                // History compacted away before it was read, or a store that does not open
                // for now: start again from the state as it is, and have pages reload.
                reader = nil
                try? session.refresh()
                files = StoreSignature(of: session.path)
                broadcast(SaveEvent().json, through: session.current.container.store.lastSequence)
                pause(.seconds(1))
            }
        }
    }

    private func pause(_ duration: Duration = LiveFeed.pollInterval) {
        pause(until: ContinuousClock.now + duration)
    }

    private func pause(until end: ContinuousClock.Instant) {
        while !stopping.load(ordering: .relaxed) && ContinuousClock.now < end {
            usleep(20_000)
        }
    }

    /// Posts `event` to every page, which then shows the store through `sequence`.
    private func broadcast(_ event: String, through sequence: UInt64) {
        subscribers.withLock { subscribers in
            subscribers.removeAll { $0.isClosed }
            for subscription in subscribers { subscription.post(event, through: sequence) }
        }
    }
}

/// What the store's files look like from outside: the segments' names and the newest one's
/// size. Another process's save, compaction or open changes it.
private struct StoreSignature: Equatable {
    var segments: [String] = []
    var newestBytes: Int64 = -1

    init(of path: String) {
        guard let files = try? StoreFiles(storeAt: path) else { return }
        segments = files.segments.map(\.name)
        var info = stat()
        if let newest = segments.last, stat(files.path(of: newest), &info) == 0 {
            newestBytes = Int64(info.st_size)
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
    private let queue: Locked<(events: [String], seen: UInt64, closed: Bool)>
    private let signal = DispatchSemaphore(value: 0)
    private static let maximumQueued = 16

    /// A subscription of a page that shows the store through sequence `seen`.
    init(seen: UInt64) { queue = Locked(([], seen, false)) }

    var isClosed: Bool { queue.withLock { $0.closed } }

    /// The last sequence the page shows, or will once it has taken the events posted.
    var seen: UInt64 { queue.withLock { $0.seen } }

    /// Queues `event`, after which the page shows the store through `sequence`.
    func post(_ event: String, through sequence: UInt64) {
        queue.withLock { queue in
            queue.events.append(event)
            if queue.events.count > Self.maximumQueued { queue.events.removeFirst() }
            queue.seen = max(queue.seen, sequence)
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
