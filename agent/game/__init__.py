"""The game itself: limit hold'em rules, events, hand records, the tracker and its context."""
