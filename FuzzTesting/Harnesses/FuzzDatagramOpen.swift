import Crypto
import HuddleWire

/// Datagram opening (docs/security.md §3.7, §5 A4) with a fixed key. The first byte picks the mode: raw bytes,
/// or a validly sealed packet with the input XORed into it. A packet opens only if it is exactly a sealed one
/// never seen before; a packet that fails never moves the replay window.
public func fuzzDatagramOpen(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let mode = input.first else { return }
    var opener = DatagramOpener(keys: DatagramFixture.receiving)
    var sealer = DatagramSealer(keys: DatagramFixture.sending)
    let sealed = (0..<3).map { index in try! sealer.seal(Array("payload \(index)".utf8)) }
    var packets: [[UInt8]] = []
    if mode & 1 == 0 {
        packets = [Array(input.dropFirst())]
    } else {
        // A valid packet, then mutations of it (input bytes XORed at positions the input picks), then a replay.
        let target = sealed[Int(mode >> 1) % sealed.count]
        packets.append(target)
        var mutated = target
        for (offset, byte) in input.dropFirst().enumerated() { mutated[offset % mutated.count] ^= byte }
        packets.append(mutated)
        packets.append(target)
    }
    var delivered = Set<[UInt8]>()
    for packet in packets {
        let window = opener.window
        switch opener.open(packet, now: .seconds(1)) {
        case .delivered(let payload):
            try require(sealed.contains(packet), "a packet that was never sealed opened")
            try require(delivered.insert(packet).inserted, "a packet opened twice")
            try require(payload.starts(with: Array("payload ".utf8)), "a packet opened to a payload never sealed")
        case .dropped:
            try require(opener.window == window, "a dropped packet moved the replay window")
        }
    }
}

/// The fixed keys: Bob's receiving half and Ada's sending half share one key, so what Ada seals, Bob opens.
private enum DatagramFixture {
    static let key = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
    static let iv = [UInt8](repeating: 9, count: 12)
    static let local = DatagramConnectionID(bytes: [UInt8](repeating: 1, count: 8))!
    static let remote = DatagramConnectionID(bytes: [UInt8](repeating: 2, count: 8))!
    static let receiving = DatagramKeys(
        sendKey: key,
        sendIV: iv,
        remoteConnectionID: remote,
        receiveKey: key,
        receiveIV: iv,
        localConnectionID: local
    )
    static let sending = DatagramKeys(
        sendKey: key,
        sendIV: iv,
        remoteConnectionID: local,
        receiveKey: key,
        receiveIV: iv,
        localConnectionID: remote
    )
}
