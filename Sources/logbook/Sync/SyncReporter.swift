import Foundation
import Logbook

/// What `logbook sync` shows while it runs: on a terminal, a progress line on standard error
/// with the rates both ways; otherwise one JSON line a second on standard output, when
/// something moved. Not thread-safe: the command's loop calls it.
final class SyncReporter {
    private let console: Console
    private let json: Bool
    private var last = ReplicaStatus()
    private var lastTime = Date()
    private var lastLine = Date.distantPast
    private var upRate = 0.0
    private var downRate = 0.0

    init(console: Console) {
        self.console = console
        json = !console.err.isTerminal
    }

    /// Shows `status` if a line is due (always when `final`).
    func report(_ status: ReplicaStatus, final: Bool = false) {
        let now = Date()
        let elapsed = now.timeIntervalSince(lastTime)
        guard final || now.timeIntervalSince(lastLine) >= (json ? 1 : 0.25) else { return }
        if elapsed > 0 {
            upRate = Double(status.changesSent - last.changesSent) / elapsed
            downRate = Double(status.changesApplied - last.changesApplied) / elapsed
        }
        let moved =
            status.changesSent != last.changesSent || status.savesSent != last.savesSent
            || status.transactionsApplied != last.transactionsApplied
            || status.pendingSaves != last.pendingSaves
            || status.changesBehind != last.changesBehind
            || status.lastError != last.lastError || status.isConnected != last.isConnected
        lastTime = now
        defer { last = status }
        if json {
            guard moved || final else { return }
            lastLine = now
            console.out.write(line(status, now))
            console.out.flush()
        } else {
            lastLine = now
            var text =
                "sync: up \(Formatting.count(status.savesSent, "save")), "
                + "\(Int(upRate)) changes/s · down "
                + "\(Formatting.count(status.transactionsApplied, "transaction")), "
                + "\(Int(downRate)) changes/s · \(status.pendingSaves) pending, "
                + "\(status.changesBehind) behind"
            // A stop disconnects on purpose: the last line does not call that a fault.
            if !status.isConnected && !final { text += " · not connected" }
            if let error = status.lastError, !status.isConnected { text += ": \(error)" }
            if final {
                console.progress.clear()
                console.err.write(text + "\n")
            } else {
                console.progress.show(text)
            }
        }
    }

    /// One JSON line of `status`.
    private func line(_ status: ReplicaStatus, _ now: Date) -> String {
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        var text = "{\"time\":" + AttributeValue.date(now).text(as: .json)
        text += ",\"sent\":{\"saves\":\(status.savesSent),\"changes\":\(status.changesSent)"
        text += ",\"perSecond\":\(number(upRate))}"
        text += ",\"applied\":{\"transactions\":\(status.transactionsApplied)"
        text += ",\"changes\":\(status.changesApplied),\"perSecond\":\(number(downRate))}"
        text += ",\"pending\":\(status.pendingSaves),\"behind\":\(status.changesBehind)"
        text += ",\"connected\":\(status.isConnected),\"error\":"
        text += status.lastError.map { AttributeValue.string($0).text(as: .json) } ?? "null"
        return text + "}\n"
    }

    /// `0.25 s`, `12 s`.
    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.2f s", value) : String(format: "%.0f s", value)
    }
}
