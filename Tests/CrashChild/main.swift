// The child process of `ProcessKillTests`: writes to a store until the parent kills it.
// Usage: logbook-crash-child STORE ACKS PIDFILE SEED
import Foundation
import TestSupport

let arguments = CommandLine.arguments
guard arguments.count == 5, let seed = UInt64(arguments[4]) else {
    print("usage: logbook-crash-child STORE ACKS PIDFILE SEED")
    exit(2)
}
KillWorkload.runChild(path: arguments[1], acks: arguments[2], pidFile: arguments[3], seed: seed)
