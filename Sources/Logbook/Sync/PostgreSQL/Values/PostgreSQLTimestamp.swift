/// Dates in PostgreSQL's ISO text form (the client sets `DateStyle=ISO`), for the proleptic
/// Gregorian calendar PostgreSQL uses, BC years included: `2001-09-09 01:46:40.25+00`,
/// `0044-03-15 12:00:00+00 BC`.
extension PostgreSQLCell {
    static let microsecondsPerDay: Int64 = 86_400_000_000
    /// Days from 1970-01-01 to 2000-01-01.
    static let epochDays: Int64 = 10_957

    /// `timestamptz` or `timestamp` text (a timestamp without zone is read as UTC), or a
    /// `date` (midnight UTC): microseconds since 2000-01-01 UTC.
    func timestampText(_ text: String) throws -> Int64 {
        var scanner = DateScanner(text)
        let bc = text.hasSuffix(" BC")
        if bc { scanner.end -= 3 }
        guard var year = scanner.number(minDigits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
        else { throw failure("is not an ISO date (\"infinity\" has no Date)") }
        if bc { year = 1 - year }
        var micros =
            (Self.daysFromCivil(year: year, month: month, day: day) - Self.epochDays)
            * Self.microsecondsPerDay
        if scanner.skip(" ") {
            guard let hour = scanner.number(digits: 2), scanner.skip(":"),
                let minute = scanner.number(digits: 2), scanner.skip(":"),
                let second = scanner.number(digits: 2), hour <= 24, minute < 60, second < 61
            else { throw failure("is not an ISO time") }
            micros += ((hour * 60 + minute) * 60 + second) * 1_000_000
            if scanner.skip(".") {
                var scale: Int64 = 100_000
                var digits = 0
                while let digit = scanner.digit() {
                    micros += digit * scale
                    scale /= 10
                    digits += 1
                }
                guard digits > 0, digits <= 6 else { throw failure("has a bad fraction") }
            }
            if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2) else { throw failure("has a bad zone") }
                var offset = hours * 3600
                if scanner.skip(":"), let minutes = scanner.number(digits: 2) {
                    offset += minutes * 60
                    if scanner.skip(":"), let seconds = scanner.number(digits: 2) {
                        offset += seconds
                    }
                }
                micros -= sign * offset * 1_000_000
            }
        }
        guard scanner.isAtEnd else { throw failure("has text after the date") }
        return micros
    }

    /// `micros` (since 2000-01-01 UTC) as `timestamptz` input text in UTC.
    static func isoTimestamp(microsecondsSince2000 micros: Int64) -> String {
        let days = floorDivide(micros, microsecondsPerDay)
        let time = micros - days * microsecondsPerDay
        let (year, month, day) = civilFromDays(days + epochDays)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let seconds = time / 1_000_000
        var text = "\(pad(year > 0 ? year : 1 - year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
        text += "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        text += ".\(pad(time % 1_000_000, 6))+00"
        return year > 0 ? text : text + " BC"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (year 0 is 1 BC).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysFromCivil(year:month:day:)``.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

/// Reads the numbers of a date's text, in bounds.
private struct DateScanner {
    let bytes: [UInt8]
    var index = 0
    var end: Int

    init(_ text: String) {
        bytes = Array(text.utf8)
        end = bytes.count
    }

    var isAtEnd: Bool { index == end }

    mutating func skip(_ c: Character) -> Bool {
        guard index < end, bytes[index] == c.asciiValue else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard index < end, (0x30...0x39).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int64(bytes[index] - 0x30)
    }

    mutating func number(digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let d = digit() else { return nil }
            value = value * 10 + d
        }
        return value
    }

    /// At least `minDigits` digits, at most 9.
    mutating func number(minDigits: Int) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while count < 9, let d = digit() {
            value = value * 10 + d
            count += 1
        }
        return count >= minDigits ? value : nil
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
