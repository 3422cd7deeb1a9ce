import Foundation
import LogStore
import TestSupport

/// The soak parent's model of the store: the state after every acknowledged save, the save in
/// flight, and what each commit held; it checks every report of the soak's processes
/// (``SoakWorkload``) against it as the report arrives. Thread-safe.
final class SoakModel: Sendable {
    struct Counts: Sendable {
        var acknowledged = 0
        var starts = 0
        /// Saves in flight at a kill that the restarted writer found in the store.
        var inFlightKept = 0
        /// Saves in flight at a kill that it did not find (never acknowledged, so not lost).
        var inFlightDropped = 0
        var lost = 0
        var extra = 0
        var views: [String: Int] = [:]
        var backups = 0
        var incrementalBackups = 0
        var backupsVerified = 0
        var lastState = SoakState()
    }

    private struct State {
        var acknowledged = SoakState()
        var inFlight: SoakState?
        var lastAcknowledgedSequence: UInt64 = 0
        /// What the store held at each commit the model knows.
        var digests: [UInt64: UInt64] = [:]
        /// Views whose commit the model does not know yet (a reader can see a save before its
        /// acknowledgement reaches the parent): source, commit, digest.
        var pending: [(String, UInt64, UInt64)] = []
        var counts = Counts()
        var failures: [String] = []
    }

    private let state = Locked(State())

    var counts: Counts { state.withLock { $0.counts } }
    var failures: [String] { state.withLock { $0.failures } }
    /// Views still unknown to the model, described.
    var unresolved: [String] {
        state.withLock { $0.pending.map { "\($0.0) saw commit \($0.1) (digest \($0.2))" } }
    }

    /// A line of the writer (or of the final check).
    func writer(_ line: String) {
        let words = line.split(separator: " ")
        state.withLock { s in
            switch words.first {
            case "start" where words.count >= 3:
                guard let sequence = UInt64(words[1]), let digest = UInt64(words[2]) else { break }
                s.counts.starts += 1
                if digest == s.acknowledged.digest {
                    if s.inFlight != nil { s.counts.inFlightDropped += 1 }
                } else if let inFlight = s.inFlight, inFlight.digest == digest {
                    s.acknowledged = inFlight
                    s.counts.inFlightKept += 1
                } else {
                    if sequence < s.lastAcknowledgedSequence {
                        s.counts.lost += 1
                    } else {
                        s.counts.extra += 1
                    }
                    s.failures.append(
                        "the writer restarted at commit \(sequence) with digest \(digest) "
                            + "(\(line)); the acknowledged saves hold \(s.acknowledged.summary) "
                            + "up to commit \(s.lastAcknowledgedSequence)"
                            + (s.inFlight.map { ", with the one in flight \($0.summary)" } ?? ""))
                }
                s.inFlight = nil
                Self.know(sequence, digest, &s)
            case "intent":
                var next = s.acknowledged
                for word in words.dropFirst() {
                    guard let effect = SoakState.Effect(word: word) else {
                        s.failures.append("unreadable effect \(word)")
                        return
                    }
                    next.apply(effect)
                }
                s.inFlight = next
            case "ack" where words.count == 2:
                guard let sequence = UInt64(words[1]), let next = s.inFlight else {
                    s.failures.append("an acknowledgement of nothing: \(line)")
                    return
                }
                s.acknowledged = next
                s.inFlight = nil
                s.lastAcknowledgedSequence = sequence
                s.counts.acknowledged += 1
                Self.know(sequence, next.digest, &s)
            default:
                s.failures.append("writer: \(line)")
            }
            s.counts.lastState = s.acknowledged
        }
    }

    /// A line of a reader or a backup, from `source`.
    func observer(_ source: String, _ line: String) {
        let words = line.split(separator: " ")
        state.withLock { s in
            switch words.first {
            case "view" where words.count == 3:
                guard let sequence = UInt64(words[1]), let digest = UInt64(words[2]) else { break }
                s.counts.views[source, default: 0] += 1
                Self.check(source, sequence, digest, &s)
            case "backup" where words.count == 6:
                guard let sequence = UInt64(words[1]), let digest = UInt64(words[5]) else { break }
                s.counts.backups += 1
                if words[2] == "true" { s.counts.incrementalBackups += 1 }
                if words[4] == "true" { s.counts.backupsVerified += 1 }
                Self.check(source, sequence, digest, &s)
            default:
                s.failures.append("\(source): \(line)")
            }
        }
    }

    /// Records what commit `sequence` held, and checks the views waiting for it.
    private static func know(_ sequence: UInt64, _ digest: UInt64, _ s: inout State) {
        if let known = s.digests[sequence], known != digest {
            s.failures.append(
                "commit \(sequence) held digest \(known), and later \(digest): a commit changed")
        }
        s.digests[sequence] = digest
        let waiting = s.pending.filter { $0.1 == sequence }
        s.pending.removeAll { $0.1 == sequence }
        for (source, sequence, digest) in waiting { check(source, sequence, digest, &s) }
    }

    private static func check(
        _ source: String, _ sequence: UInt64, _ digest: UInt64, _ s: inout State
    ) {
        guard let known = s.digests[sequence] else {
            s.pending.append((source, sequence, digest))
            return
        }
        if known != digest {
            s.failures.append(
                "\(source) saw commit \(sequence) holding digest \(digest), but the save that "
                    + "made it left \(known): half a save, or a save nobody made")
        }
    }
}
