import Crypto

/// The receive side of one session's datagram channel: checks, decrypts and de-duplicates each packet
/// (`docs/security.md` §3.7).
///
/// Receive order, cheapest and safest first:
/// 1. parse the 18-byte header; anything shorter than 34 bytes is malformed;
/// 2. `dst_cid` must be ours, otherwise the packet is dropped before any crypto;
/// 3. the epoch picks the key and the replay window (current, previous within its grace period, or next);
/// 4. a packet number below the window or already seen is a replay (RFC 6479);
/// 5. `ChaChaPoly.open` with `nonce = iv XOR pn` and the header as AAD (RFC 8439 §2.8, RFC 9001 §5.3);
/// 6. only after the tag verifies is the packet number marked, so a forged number can never slide the window.
///
/// Each epoch has its own window because packet numbers restart at 0 with every new key. The opener reads no clock:
/// `now` is passed in, measured from any fixed start on a monotonic clock, like the sealer's.
public struct DatagramOpener: Sendable {
    /// How long packets of the previous epoch are still accepted after a rekey: 2 seconds, enough for packets
    /// already in flight on a LAN.
    public static let defaultGracePeriod: Duration = .seconds(2)
    /// After this many authentication failures the session should be closed: 2^20, far below the
    /// ChaCha20-Poly1305 integrity limit of 2^36 forgeries (RFC 9001 §6.6).
    public static let defaultAuthenticationFailureLimit: UInt64 = 1 << 20

    private struct Epoch: Sendable {
        var number: UInt8
        var key: SymmetricKey
        var window = ReplayWindow()
    }

    /// Our connection ID; packets carrying any other `dst_cid` are dropped.
    public let connectionID: DatagramConnectionID
    /// How long the previous epoch stays open after a rekey.
    public let gracePeriod: Duration
    /// How many authentication failures make ``isCloseRecommended`` true.
    public let authenticationFailureLimit: UInt64
    /// What happened to the packets so far.
    public private(set) var counters = DatagramCounters()

    private let iv: [UInt8]
    private var current: Epoch
    /// The key of epoch `current + 1`, derived once per epoch so forged next-epoch packets cost no HKDF.
    private var nextKey: SymmetricKey
    private var previous: (epoch: Epoch, retiredAt: Duration)?
    private var expiredEpochNumber: UInt8?

    /// Creates the opener for the direction we receive on.
    ///
    /// - Parameters:
    ///   - keys: our half of the ``DatagramKeySchedule``.
    ///   - gracePeriod: how long the previous epoch stays open after a rekey; 2 s by default.
    ///   - authenticationFailureLimit: failures after which the session should close; 2^20 by default.
    public init(
        keys: DatagramKeys,
        gracePeriod: Duration = Self.defaultGracePeriod,
        authenticationFailureLimit: UInt64 = Self.defaultAuthenticationFailureLimit
    ) {
        precondition(keys.receiveIV.count == DatagramKeySchedule.ivByteCount, "datagram IVs are 12 bytes")
        self.connectionID = keys.localConnectionID
        self.gracePeriod = gracePeriod
        self.authenticationFailureLimit = authenticationFailureLimit
        self.iv = keys.receiveIV
        self.current = Epoch(number: 0, key: keys.receiveKey)
        self.nextKey = DatagramPacket.nextEpochKey(after: keys.receiveKey)
    }

    /// The epoch whose key is current.
    public var epoch: UInt8 {
        current.number
    }

    /// The replay window of the current epoch.
    public var window: ReplayWindow {
        current.window
    }

    /// The previous epoch and its window while it is still within its grace period as of the last call.
    public var previousEpoch: (number: UInt8, window: ReplayWindow)? {
        previous.map { ($0.epoch.number, $0.epoch.window) }
    }

    /// True once ``authenticationFailureLimit`` packets have failed to authenticate: the peer, or someone on the
    /// path, is forging at a rate no honest network produces. Close the session; later packets are all dropped.
    public var isCloseRecommended: Bool {
        counters.authFailures >= authenticationFailureLimit
    }

    /// Moves to `epoch` when it is the next one; the current epoch stays open for ``gracePeriod`` from `now`.
    /// Huddle's sessions do not call this (no message announces a rekey, `docs/wire-protocol.md` §8): it is for a
    /// caller that learns of a new epoch some other way.
    ///
    /// If a packet of the new epoch already arrived and authenticated, the opener has moved by itself and this
    /// call does nothing.
    /// - Returns: whether the opener moved.
    @discardableResult
    public mutating func rekey(to epoch: UInt8, now: Duration) -> Bool {
        guard epoch == current.number &+ 1 else { return false }
        advance(to: Epoch(number: epoch, key: nextKey), now: now)
        return true
    }

    /// Checks and opens one received packet.
    ///
    /// Never throws: every failure is a ``DatagramOpenResult/dropped(_:)`` and a counter in ``counters``.
    public mutating func open(_ packet: [UInt8], now: Duration) -> DatagramOpenResult {
        let header = DatagramPacket.Header(parsing: packet)
        if let reason = screen(header) { return .dropped(reason) }
        guard let header else { return .dropped(.malformed) }  // screen(_:) already dropped a missing header
        return open(packet, header: header, now: now)
    }

    /// Steps 1 and 2 of the receive order, plus the failure limit: the checks that need no key.
    ///
    /// - Returns: why the packet must be dropped, already counted, or `nil` when it may go on to ``open(_:header:now:)``.
    mutating func screen(_ header: DatagramPacket.Header?) -> DatagramDropReason? {
        guard let header else {
            counters.malformed += 1
            return .malformed
        }
        guard header.version == DatagramPacket.version else {
            counters.malformed += 1
            return .unsupportedVersion
        }
        guard header.destination == connectionID else {
            counters.unknownConnectionID += 1
            return .unknownConnectionID
        }
        guard !isCloseRecommended else {
            counters.authFailures += 1
            return .failureLimitReached
        }
        return nil
    }

    /// Steps 3 to 6 of the receive order for a packet that passed ``screen(_:)``.
    mutating func open(_ packet: [UInt8], header: DatagramPacket.Header, now: Duration) -> DatagramOpenResult {
        expirePrevious(now: now)

        var slot: Epoch
        var isNext = false
        if header.epoch == current.number {
            slot = current
        } else if let previous, header.epoch == previous.epoch.number {
            slot = previous.epoch
        } else if header.epoch == current.number &+ 1 {
            slot = Epoch(number: header.epoch, key: nextKey)
            isNext = true
        } else {
            counters.unknownEpoch += 1
            return .dropped(header.epoch == expiredEpochNumber ? .expiredEpoch : .unknownEpoch)
        }

        switch slot.window.check(header.packetNumber) {
        case .fresh:
            break
        case .duplicate:
            counters.replayDropped += 1
            return .dropped(.duplicate)
        case .tooOld:
            counters.replayDropped += 1
            return .dropped(.tooOld)
        }

        guard let payload = decrypt(packet, packetNumber: header.packetNumber, key: slot.key) else {
            counters.authFailures += 1
            return .dropped(.authenticationFailed)
        }

        slot.window.mark(header.packetNumber)
        if isNext {
            advance(to: slot, now: now)
        } else if slot.number == current.number {
            current = slot
        } else {
            previous?.epoch = slot
        }
        counters.delivered += 1
        return .delivered(payload)
    }

    private func decrypt(_ packet: [UInt8], packetNumber: UInt64, key: SymmetricKey) -> [UInt8]? {
        let header = packet[..<DatagramPacket.headerByteCount]
        let tagStart = packet.count - DatagramPacket.tagByteCount
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: DatagramPacket.nonceBytes(iv: iv, packetNumber: packetNumber)),
                ciphertext: packet[DatagramPacket.headerByteCount..<tagStart],
                tag: packet[tagStart...]
            )
            return Array(try ChaChaPoly.open(box, using: key, authenticating: header))
        } catch {
            return nil
        }
    }

    private mutating func advance(to next: Epoch, now: Duration) {
        previous = (current, now)
        expiredEpochNumber = nil
        current = next
        nextKey = DatagramPacket.nextEpochKey(after: next.key)
    }

    private mutating func expirePrevious(now: Duration) {
        guard let previous, now - previous.retiredAt > gracePeriod else { return }
        expiredEpochNumber = previous.epoch.number
        self.previous = nil
    }
}
