import Foundation

/// SASLprep (RFC 4013, the stringprep profile of RFC 3454) as PostgreSQL applies it to a
/// SCRAM password: map, normalize (NFKC), and refuse prohibited code points. Like
/// PostgreSQL's own `pg_saslprep`, a password that fails the profile is used as its raw UTF-8
/// bytes (the server did the same when it stored the password), so the result is always the
/// bytes to hash.
///
/// ASCII passwords come back unchanged. Unassigned code points (RFC 3454 table A.1) are those
/// Unicode 3.2 had not assigned, read from the standard library's `Unicode.Scalar.Properties.age`.
/// The bidirectional rule (RFC 3454 §6) uses the right-to-left script blocks of table D.1 and
/// treats every other letter as left-to-right: close to tables D.1 and D.2, not equal to them.
enum SASLprep {
    /// The bytes SCRAM hashes for `password`.
    static func prepare(_ password: String) -> [UInt8] {
        let raw = Array(password.utf8)
        guard raw.contains(where: { $0 >= 0x80 }) else { return raw }
        var mapped = String.UnicodeScalarView()
        for scalar in password.unicodeScalars {
            if isMappedToNothing(scalar) { continue }
            mapped.append(isNonASCIISpace(scalar) ? " " : scalar)
        }
        let normalized = String(mapped).precomposedStringWithCompatibilityMapping
        let scalars = Array(normalized.unicodeScalars)
        if scalars.contains(where: isProhibited) { return raw }
        if scalars.contains(where: isRightToLeft) {
            guard let first = scalars.first, let last = scalars.last, isRightToLeft(first),
                isRightToLeft(last), !scalars.contains(where: isLeftToRight)
            else { return raw }
        }
        return Array(normalized.utf8)
    }

    /// Table B.1: commonly mapped to nothing.
    private static func isMappedToNothing(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00AD, 0x034F, 0x1806, 0x180B...0x180D, 0x200B...0x200D, 0x2060, 0xFE00...0xFE0F,
            0xFEFF:
            return true
        default: return false
        }
    }

    /// Table C.1.2: non-ASCII space characters (mapped to SPACE by RFC 4013 §2.1).
    private static func isNonASCIISpace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00A0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// RFC 4013 §2.3: tables C.1.2, C.2.1, C.2.2, C.3, C.4, C.5, C.6, C.7, C.8, C.9, and A.1.
    private static func isProhibited(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        switch v {
        case 0x0000...0x001F, 0x007F: return true  // C.2.1
        case 0x0080...0x009F, 0x06DD, 0x070F, 0x180E, 0x200C, 0x200D, 0x2028, 0x2029,
            0x2060...0x2063, 0x206A...0x206F, 0xFEFF, 0xFFF9...0xFFFC, 0x1D173...0x1D17A:
            return true  // C.2.2
        case 0xE000...0xF8FF, 0xF0000...0xFFFFD, 0x100000...0x10FFFD: return true  // C.3
        case 0xFDD0...0xFDEF: return true  // C.4
        case 0xFFF9...0xFFFD: return true  // C.6
        case 0x2FF0...0x2FFB: return true  // C.7
        case 0x0340, 0x0341, 0x200E, 0x200F, 0x202A...0x202E: return true  // C.8
        case 0xE0001, 0xE0020...0xE007F: return true  // C.9
        default: break
        }
        if v & 0xFFFE == 0xFFFE { return true }  // C.4: U+nFFFE, U+nFFFF
        if isNonASCIISpace(s) { return true }  // C.1.2, should mapping have missed one
        // A.1: unassigned in Unicode 3.2.
        guard let age = s.properties.age else { return true }
        return age.major > 3 || (age.major == 3 && age.minor > 2)
    }

    /// Table D.1, by block: Hebrew, Arabic, Syriac, Thaana, and their presentation forms.
    private static func isRightToLeft(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x05BE, 0x05C0, 0x05C3, 0x05D0...0x05F4, 0x061B, 0x061F, 0x0621...0x064A,
            0x066D...0x066F, 0x0671...0x06D5, 0x06DD, 0x06E5, 0x06E6, 0x06FA...0x06FE,
            0x0700...0x070D, 0x0710, 0x0712...0x072C, 0x0780...0x07A5, 0x07B1, 0x200F,
            0xFB1D, 0xFB1F...0xFB28, 0xFB2A...0xFDFF, 0xFE70...0xFEFC:
            return true
        default: return false
        }
    }

    /// Table D.2, approximately: a letter (or a mark on one) that is not right-to-left.
    private static func isLeftToRight(_ s: Unicode.Scalar) -> Bool {
        s.value == 0x200E || (s.properties.isAlphabetic && !isRightToLeft(s))
    }
}
