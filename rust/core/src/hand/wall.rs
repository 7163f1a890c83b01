//! The wall and the tiles every seat sees (docs/rules.md R1, R2.3, R12.1): the native twin of
//! the Python engine's `Wall` part.

/// The wall in draw order, how far it has been drawn, the dealt multiset and the visible count.
///
/// The wall never changes length: a draw advances `pos`. `seen` counts the tiles face up for
/// every seat: discard piles, melds (a pung shows 3, a kong 4, concealed kongs too, R2.3) and
/// tiles set aside by winners that stay (R14.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wall {
    /// The wall in draw order.
    pub tiles: Vec<u8>,
    /// The 27 counts of the hands and the wall together, as dealt (R12.1).
    pub dealt: [u8; 27],
    /// The next tile to draw.
    pub pos: usize,
    /// The visible tiles (R2.3).
    pub seen: [u8; 27],
}

impl Wall {
    /// Tiles left to draw.
    #[inline]
    pub fn count(&self) -> usize {
        self.tiles.len() - self.pos
    }

    /// No tile is left.
    #[inline]
    pub fn empty(&self) -> bool {
        self.pos >= self.tiles.len()
    }

    /// `n` more tiles of kind `k` are face up.
    #[inline]
    pub(crate) fn see(&mut self, k: u8, n: u8) {
        self.seen[k as usize] += n;
    }
}
