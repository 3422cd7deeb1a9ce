import Foundation
import Logbook
import Synchronization

/// Saves one ``Employee`` per save, named `e0`, `e1`, …, on a thread of its own until
/// ``finish()``, recording each save's sequence number: what a store must hold at a token.
public final class SavingThread: Sendable {
    /// Each save's employee and the sequence number of its commit, in order.
    package let saved = Locked<[(name: String, sequence: UInt64)]>([])
    /// The first error a save threw, which stopped the thread.
    package let failure = Locked<String?>(nil)
    private let stop = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Starts saving into `container`, `perSave` employees a save, compacting the store after
    /// every `compactEvery` saves if given, stopping by itself after `maxSaves` saves if given,
    /// and pausing `pauseMicroseconds` after each save (on a tmpfs saves cost next to nothing,
    /// and a writer without a bound or a pause outgrows what a reader can take in and keeps a
    /// core busy).
    public init(
        _ container: ModelContainer, perSave: Int = 1, compactEvery: Int? = nil,
        maxSaves: Int? = nil, pauseMicroseconds: UInt32 = 0
    ) {
        Thread.detachNewThread { [self] in
            let context = ModelContext(container)
            var i = 0
            var saves = 0
            while !stop.load(ordering: .relaxed) && saves < (maxSaves ?? .max) {
                let names = (i..<(i + perSave)).map { "e\($0)" }
                for (n, name) in zip(i..., names) {
                    context.insert(Employee(name: name, designation: "d\(n % 7)", salary: Int64(n)))
                }
                do {
                    try context.save()
                    let sequence = try container.currentHistoryToken.sequence
                    saved.withLock { $0 += names.map { ($0, sequence) } }
                    saves += 1
                    if let compactEvery, saves % compactEvery == 0 {
                        _ = try container.store.compact()
                    }
                } catch {
                    failure.withLock { $0 = "save \(saves): \(error)" }
                    break
                }
                i += perSave
                if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
            }
            ended.store(true, ordering: .releasing)
            done.signal()
        }
    }

    /// Employees saved so far.
    public var count: Int { saved.withLock { $0.count } }

    /// Waits until at least `count` employees were saved (or a save failed).
    public func wait(forSaves count: Int) {
        while self.count < count && failure.withLock({ $0 }) == nil { usleep(1000) }
    }

    /// The names saved at or before `sequence`.
    ///
    /// A save is visible (to a backup, a reader) as soon as it commits, a moment before this
    /// thread records it: so this first waits, up to 10 s, for the thread to record a save at
    /// `sequence` or later (or to stop). Without the wait, a backup that took the writer's
    /// newest save could be compared with a list that lacked it.
    public func names(upTo sequence: UInt64) -> Set<String> {
        let deadline = Date().addingTimeInterval(10)
        while saved.withLock({ ($0.last?.sequence ?? 0) < sequence }), !stopped, Date() < deadline {
            usleep(1000)
        }
        return Set(saved.withLock { $0.filter { $0.sequence <= sequence }.map(\.name) })
    }

    /// Whether the thread has stopped saving (finished, failed or reached its bound).
    private var stopped: Bool { ended.load(ordering: .acquiring) }

    /// Stops the thread and waits for it.
    public func finish() {
        stop.store(true, ordering: .relaxed)
        done.wait()
    }
}
