// `employees`: the seed's Employee list app on the terminal, and Logbook's example app.
//
// Layout, from the store up:
//   Model/        EmployeeRecord and friends: plain values, the salary rule, the error type
//   Repository/   EmployeeRepository — the app's only view of storage — with the Logbook
//                 implementation the app ships (its model class: Employee) and an
//                 in-memory one for tests
//   CommandLine/  argument parsing, the store's location, the subcommands, `demo`, help
//   Screen/       the interactive list as a pure state machine: keys in, text frames out
//   Terminal/     raw mode, signals, window size and drawing: the only code that touches the tty
import Foundation

exit(
    EmployeesApp.main(
        arguments: Array(CommandLine.arguments.dropFirst()),
        environment: ProcessInfo.processInfo.environment))
