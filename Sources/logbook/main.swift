#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(LogbookTool.main(Array(CommandLine.arguments.dropFirst()), console: Console()))
