/// Rows of a new frame that are rows of the previous frame moved up or down, whole lines only: a
/// terminal moves them with its scroll region (ESC[top;bottom r, then ESC[nS or ESC[nT) for a few
/// bytes instead of having every moved row redrawn. A table scrolled by one row is the common case.
///
/// Whole screen width only: a region narrower than the screen (a table beside a side panel) would
/// need left and right margins (DECSLRM), which terminfo does not describe and many terminals lack,
/// so such frames are left to the plain diff.
public struct RowScroll: Sendable, Equatable {
    /// The scroll region: rows `top..<bottom`.
    public let top: Int
    public let bottom: Int
    /// How far the region's content moves: positive up (new rows come in at the bottom), negative down.
    public let distance: Int

    public init(top: Int, bottom: Int, distance: Int) {
        self.top = top
        self.bottom = bottom
        self.distance = distance
    }

    /// The move that leaves the fewest rows to redraw, or nil when none saves at least
    /// `minimumSaving` rows (a selection moving inside a view changes two rows and moves none).
    ///
    /// For each distance, every region is scored with prefix sums: a row gains when the move
    /// brings the content it needs and it changed (it would have been redrawn), and loses when the
    /// move breaks a row that was right. Of equal scores the first found wins: the shortest
    /// distance, the highest and shortest region.
    public static func find(from previous: Buffer, to next: Buffer, minimumSaving: Int = 3) -> RowScroll? {
        guard previous.area == next.area else { return nil }
        let width = next.area.width
        let height = next.area.height
        guard height >= 3, width > 0 else { return nil }
        func row(_ buffer: Buffer, _ y: Int) -> ArraySlice<Cell> { buffer.cells[(y * width)..<((y + 1) * width)] }
        // Fingerprints of rows' symbols: cheap to compare across every distance; equal ones are then
        // compared cell by cell (styles are not in them).
        let old = previous.rowFingerprints
        let new = next.rowFingerprints
        // Rows whose text changed: without enough of them nothing moved (a selection only restyles).
        guard (0..<height).lazy.filter({ new[$0] != old[$0] }).count >= minimumSaving else { return nil }
        let changed = (0..<height).map { new[$0] != old[$0] || row(next, $0) != row(previous, $0) }
        let blankRow = Array(repeating: Cell.blank, count: width)[...]
        // A changed row made right gains; one it replaces with something else costs a little (a
        // whole row to write where a few cells might have done); an unchanged row it breaks costs more.
        func gain(_ y: Int, right: Bool) -> Int { right ? (changed[y] ? 2 : 0) : (changed[y] ? -1 : -3) }
        // Score of each row when a blank row comes in there: never a gain, so that a move is chosen
        // for the rows it moves, not to clear rows.
        var blankPrefix = [0]
        for y in 0..<height { blankPrefix.append(blankPrefix[y] + min(0, gain(y, right: row(next, y) == blankRow))) }
        let threshold = 2 * minimumSaving
        var best: (move: RowScroll, score: Int)?
        for distance in 1..<(height - 1) {
            for shift in [distance, -distance] {
                // Too few rows could come from this far away to be worth a move.
                let candidates = (0..<height).lazy.filter { y in y + shift >= 0 && y + shift < height && new[y] == old[y + shift] }
                guard candidates.count >= minimumSaving else { continue }
                // Score of each row y receiving the old row y + shift.
                var movedPrefix = [0]
                for y in 0..<height {
                    let source = y + shift
                    let right = source >= 0 && source < height && new[y] == old[source] && row(next, y) == row(previous, source)
                    movedPrefix.append(movedPrefix[y] + gain(y, right: right))
                }
                for top in 0..<(height - distance) {
                    for bottom in (top + distance + 1)...height {
                        // Up: rows top..<bottom-d get old rows +d, the last d rows come in blank; down the reverse.
                        let score = shift > 0
                            ? movedPrefix[bottom - distance] - movedPrefix[top] + blankPrefix[bottom] - blankPrefix[bottom - distance]
                            : blankPrefix[top + distance] - blankPrefix[top] + movedPrefix[bottom] - movedPrefix[top + distance]
                        if score >= threshold, score > (best?.score ?? 0) {
                            best = (RowScroll(top: top, bottom: bottom, distance: shift), score)
                        }
                    }
                }
            }
        }
        guard var move = best?.move else { return nil }
        // Rows just beyond the moved ones that need only a cell or two once moved (a scroll
        // position marker in the border) are moved too: fixing a cell is cheaper than a row.
        func nearlyRight(_ y: Int) -> Bool {
            let source = y + move.distance
            guard changed[y], source >= 0, source < height else { return false }
            var differences = 0
            for x in 0..<width where next.cells[y * width + x] != previous.cells[source * width + x] {
                differences += 1
                if differences > 2 { return false }
            }
            return true
        }
        if move.distance > 0 {
            while move.top > 0, nearlyRight(move.top - 1) { move = RowScroll(top: move.top - 1, bottom: move.bottom, distance: move.distance) }
        } else {
            while move.bottom < height, nearlyRight(move.bottom) { move = RowScroll(top: move.top, bottom: move.bottom + 1, distance: move.distance) }
        }
        return move
    }
}

extension Buffer {
    /// This buffer as a terminal shows it after `move`: the region's rows shifted, blank rows in.
    public func scrolled(_ move: RowScroll) -> Buffer {
        var result = self
        let width = area.width
        let region = move.top..<move.bottom
        let blank = Array(repeating: Cell.blank, count: width)
        for y in region {
            let source = y + move.distance
            let target = (y * width)..<((y + 1) * width)
            if region.contains(source) {
                result.replaceCells(target, with: cells[(source * width)..<((source + 1) * width)])
            } else {
                result.replaceCells(target, with: blank[...])
            }
        }
        return result
    }

    /// One number per row from its symbols (styles left out: equal fingerprints are checked in full).
    var rowFingerprints: [UInt64] {
        let width = area.width
        return (0..<area.height).map { y in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for x in 0..<width {
                for byte in cells[y * width + x].symbol.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                hash = (hash ^ 0xFF) &* 0x100_0000_01b3
            }
            return hash
        }
    }
}
