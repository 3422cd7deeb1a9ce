// The processes of the soak test (`CrashTests.SoakTests`); see `SoakWorkload` for what each
// reports. Usage: logbook-soak-child writer STORE SEED | check STORE
//                 | reader STORE follow|refresh | backup STORE DESTINATION
import Foundation
import TestSupport

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("writer", 3):
    guard let seed = UInt64(arguments[2]) else { exit(2) }
    SoakWorkload.runWriter(path: arguments[1], seed: seed, once: false)
case ("check", 2):
    SoakWorkload.runWriter(path: arguments[1], seed: 0, once: true)
case ("reader", 3):
    SoakWorkload.runReader(path: arguments[1], follow: arguments[2] == "follow")
case ("backup", 3):
    exit(SoakWorkload.runBackup(path: arguments[1], destination: arguments[2]))
default:
    print(
        "usage: logbook-soak-child writer STORE SEED | check STORE | reader STORE follow|refresh"
            + " | backup STORE DESTINATION")
    exit(2)
}
