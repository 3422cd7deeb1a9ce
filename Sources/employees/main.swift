import Foundation

exit(
    EmployeesApp.main(
        arguments: Array(CommandLine.arguments.dropFirst()),
        environment: ProcessInfo.processInfo.environment))
