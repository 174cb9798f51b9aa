/// The 64-bit FNV-1a hash, in 16 hex digits: what tells two writes apart under one number and
/// two catalogues apart at one revision — the same in every process and on every backend.
package enum FNV1a {
    /// The hash of `bytes`.
    ///
    /// - Complexity: O(n) in the number of bytes.
    package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
