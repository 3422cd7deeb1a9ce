/// Least-significant-digit radix sort of 64-bit integers, 16 bits a pass; passes whose digit is
/// the same in every value are skipped (a store's references share their high bits).
enum RadixSort {
    static func sort(_ values: inout [UInt64]) {
        guard values.count > 64 else {
            values.sort()
            return
        }
        var all: UInt64 = 0
        var common: UInt64 = ~0
        for value in values {
            all |= value
            common &= value
        }
        let varying = all ^ common  // bits that differ somewhere
        var scratch = [UInt64](repeating: 0, count: values.count)
        var counts = [Int](repeating: 0, count: 1 << 16)
        for shift in stride(from: UInt64(0), to: 64, by: 16) where (varying >> shift) & 0xFFFF != 0
        {
            for i in counts.indices { counts[i] = 0 }
            values.withUnsafeBufferPointer { source in
                counts.withUnsafeMutableBufferPointer { counts in
                    for value in source { counts[Int((value >> shift) & 0xFFFF)] += 1 }
                    var total = 0
                    for i in 0..<counts.count {
                        let n = counts[i]
                        counts[i] = total
                        total += n
                    }
                    scratch.withUnsafeMutableBufferPointer { target in
                        for value in source {
                            let digit = Int((value >> shift) & 0xFFFF)
                            target[counts[digit]] = value
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&values, &scratch)
        }
    }
}
