// The child process of `ProcessKillTests`: writes to a store until the parent kills it.
// Usage: logbook-crash-child STORE ACKS PIDFILE SEED open|commit
// (`open`: ready to be killed before it opens the store; `commit`: once it is open.)
import Foundation
import TestSupport

let arguments = CommandLine.arguments
guard arguments.count == 6, let seed = UInt64(arguments[4]),
    ["open", "commit"].contains(arguments[5])
else {
    print("usage: logbook-crash-child STORE ACKS PIDFILE SEED open|commit")
    exit(2)
}
KillWorkload.runChild(
    path: arguments[1], acks: arguments[2], pidFile: arguments[3], seed: seed,
    readyBeforeOpen: arguments[5] == "open")
