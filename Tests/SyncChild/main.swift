// The child process of the replica's convergence tests: random saves in a store while its
// replica syncs, or a last sync until nothing moves (see `SyncWorkload.runChild`).
// Usage: logbook-sync-child work STORE URL NAME SEED STEPS | heal STORE URL NAME
//        | fill STORE URL NAME SAVES PER
import Foundation
import TestSupport

exit(SyncWorkload.runChild(Array(CommandLine.arguments.dropFirst())))
