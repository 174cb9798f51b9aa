// The tuning of the id tables in one place: how far ahead they hash and prefetch, and when the
// hashed table's ordered lookup gives up expecting order. Each is measured by the diff benchmark and
// Scripts/instruction-counts.sh.
extension IDTable {
    /// How far ahead a dense table's slots are prefetched: ids in no particular order reach every
    /// part of a table larger than the caches, and a dense step is only a few instructions, so
    /// the prefetch needs many ids of lead to arrive in time.
    static let denseLookahead = 64

    /// How many ids are hashed (and their slots prefetched) before the first of them is probed.
    /// A power of two: the ordered lookup keeps the hashes ahead in a ring indexed by a mask.
    /// A slot is probed on average a block's worth of ids after its prefetch, which must cover
    /// the wait for memory when the table is far beyond the caches.
    static let blockSize = 64

    /// How many ids the span of integer ids is taken over before it is compared with the table's
    /// size: a few microseconds of reading at most for ids that will not make a dense table.
    static let spanChunk = 4096

    /// How many A ids from the one after the last match an id of B is compared with before it is
    /// hashed (``walkInOrder`` compares the first three: that one and the next two).
    static let lookahead = 3

    /// Ids of B not found where expected add ``missPenalty`` strikes, ids found take one away;
    /// past ``strikeLimit`` (more than a third not found where expected for a while: B is not in
    /// A's order there, shuffled or reversed) up to ``unorderedStretch`` ids are hashed a block
    /// ahead and probed for as without expecting order, with no comparisons first and their
    /// slots prefetched — until ``backInOrder`` in a row are found each after the one before.
    static let missPenalty = 2
    static let strikeLimit = 32
    static let unorderedStretch = 512
    static let backInOrder = 8

    /// How many ids after an id not found where expected are looked for where A has them, before
    /// it is probed for at once.
    static let arrivalsAhead = 3

    /// How many ids ahead of the one being entered ``enterIntegers(_:at:of:duplicates:)`` hashes
    /// and prefetches. A power of two (the hashes ahead wait in a ring indexed by a mask).
    static let pipelineDistance = 16
}
