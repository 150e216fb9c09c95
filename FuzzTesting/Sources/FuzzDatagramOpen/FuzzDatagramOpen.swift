import Crypto
import HuddleWire

/// Datagram opening (docs/security.md §3.7, §5 A4) with a fixed key. The first byte picks the mode: raw bytes,
/// or a validly sealed packet with the input XORed into it. A packet opens only if it is exactly a sealed one
/// never seen before; a packet that fails never moves the replay window.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let mode = input.first else { return 0 }
    var opener = DatagramOpener(keys: Fixture.receiving)
    var sealer = DatagramSealer(keys: Fixture.sending)
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
            precondition(sealed.contains(packet), "a packet that was never sealed opened")
            precondition(delivered.insert(packet).inserted, "a packet opened twice")
            precondition(payload.starts(with: Array("payload ".utf8)))
        case .dropped:
            precondition(opener.window == window, "a dropped packet moved the replay window")
        }
    }
    return 0
}

enum Fixture {
    static let key = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
    static let iv = [UInt8](repeating: 9, count: 12)
    static let local = DatagramConnectionID(bytes: [UInt8](repeating: 1, count: 8))!
    static let remote = DatagramConnectionID(bytes: [UInt8](repeating: 2, count: 8))!
    /// Bob's receiving half and Ada's sending half share the key: what Ada seals, Bob opens.
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
