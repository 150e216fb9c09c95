import HuddleArenaCore
import Testing

/// Remote players drawn 100 ms in the past, sliding between received snapshots.
@Suite("Interpolation")
struct InterpolationTests {
    @Test func midpointsAreLinear() {
        var buffer = ArenaSnapshotBuffer()
        buffer.received(ArenaPosition(x: 0, y: 1_000), sequence: 1, atMilliseconds: 1_000)
        buffer.received(ArenaPosition(x: 100, y: 0), sequence: 2, atMilliseconds: 1_050)
        #expect(buffer.position(atMilliseconds: 1_025) == ArenaPosition(x: 50, y: 500))
        #expect(buffer.position(atMilliseconds: 1_010) == ArenaPosition(x: 20, y: 800))
        #expect(buffer.position(now: 1_125) == ArenaPosition(x: 50, y: 500))
        #expect(buffer.position(atMilliseconds: 1_000) == ArenaPosition(x: 0, y: 1_000))
    }

    @Test func holdsTheEndsWhenThereIsNothingAround() {
        var buffer = ArenaSnapshotBuffer()
        #expect(buffer.position(atMilliseconds: 5) == nil)
        buffer.received(ArenaPosition(x: 7, y: 7), sequence: 10, atMilliseconds: 100)
        #expect(buffer.position(atMilliseconds: 0) == ArenaPosition(x: 7, y: 7))
        buffer.received(ArenaPosition(x: 17, y: 7), sequence: 11, atMilliseconds: 150)
        #expect(buffer.position(atMilliseconds: 90) == ArenaPosition(x: 7, y: 7))
        #expect(buffer.position(atMilliseconds: 10_000) == ArenaPosition(x: 17, y: 7))
    }

    @Test func aLostSnapshotIsBridged() {
        var buffer = ArenaSnapshotBuffer()
        buffer.received(ArenaPosition(x: 0, y: 0), sequence: 1, atMilliseconds: 0)
        // Sequence 2 was lost; 3 arrives 100 ms later.
        buffer.received(ArenaPosition(x: 192, y: -192), sequence: 3, atMilliseconds: 100)
        #expect(buffer.position(atMilliseconds: 25) == ArenaPosition(x: 48, y: -48))
    }

    @Test func staleSnapshotsAreIgnored() {
        var buffer = ArenaSnapshotBuffer()
        let kept = [
            buffer.received(ArenaPosition(x: 0, y: 0), sequence: 5, atMilliseconds: 0),
            buffer.received(ArenaPosition(x: 50, y: 0), sequence: 6, atMilliseconds: 50),
            buffer.received(ArenaPosition(x: 999, y: 999), sequence: 4, atMilliseconds: 60),
            buffer.received(ArenaPosition(x: 999, y: 999), sequence: 6, atMilliseconds: 60),
        ]
        #expect(kept == [true, true, false, false])
        #expect(buffer.snapshots.map(\.sequence) == [5, 6])
        // A newer snapshot stamped earlier than the newest kept one is moved to its time.
        let late = buffer.received(ArenaPosition(x: 60, y: 0), sequence: 7, atMilliseconds: 10)
        #expect(late)
        #expect(buffer.snapshots.last?.time == 50)
        #expect(buffer.position(atMilliseconds: 1_000) == ArenaPosition(x: 60, y: 0))
    }

    @Test func memoryIsBounded() {
        var buffer = ArenaSnapshotBuffer()
        for sequence in UInt32(1)...100 {
            buffer.received(
                ArenaPosition(x: Int32(sequence), y: 0),
                sequence: sequence,
                atMilliseconds: Int64(sequence) * 50
            )
        }
        #expect(buffer.snapshots.count == 8)
        #expect(buffer.snapshots.first?.sequence == 93)
        #expect(buffer.position(atMilliseconds: 0) == ArenaPosition(x: 93, y: 0))

        var remote = ArenaRemotePlayers(maximumPlayers: 2)
        let players = (0..<4).map {
            ArenaPlayerState(id: ArenaPlayerID(owner: "p\($0)", index: 0), position: .init(x: 1, y: 1))
        }
        remote.received(tick: 1, players: players, atMilliseconds: 0)
        #expect(remote.buffers.count == 2)
        #expect(remote.positions(now: 500).count == 2)
        remote.remove(owner: "p0")
        #expect(remote.buffers.keys.map(\.owner) == ["p1"])
    }
}
