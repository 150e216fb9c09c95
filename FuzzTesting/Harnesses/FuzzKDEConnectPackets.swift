import HuddleKDEConnectWire

/// What a KDE Connect device sends (docs/kdeconnect.md, "Packets", "Identity", "Pairing", "Limits"; docs/security.md
/// §5). The first byte says what the rest is:
///
/// - bits 0–1 = 0 or 3: a byte stream, fed to `KDEConnectLines` in chunks as a link's reads are (bits 4–6: chunks of
///   1, 2, 3, 7, 64, 1,000 or 4,096 bytes, or all at once) under a line limit (bits 2–3: the identity limit, the
///   packet limit, or 64 or 1,024 bytes, which short inputs cross); each line to `KDEConnectPacket`, and an identity
///   packet on to `KDEConnectIdentity`, as a link does. The stream ends where the splitter refuses a line (the link
///   is closed then).
/// - 1: one identity packet: bit 2 clear, a UDP announcement (at most the identity limit, one final newline
///   dropped), set, the first line of a link (through `KDEConnectLines` under the identity limit).
/// - 2: a script driving one device's `KDEConnectPairing` (bit 2: the device starts paired, as a pinned one does).
///   Each step is an op byte (low 3 bits) with its operands: 0 we ask to pair (`timestamp` byte), 1 our user
///   accepts, 2 our user refuses, 3 the device says `pair: true` (`timestamp` byte, 0 for none, as version 7 sends
///   it), 4 the device says `pair: false`, 5 time passes (`half-seconds` byte), 6 the service's tick, 7 a packet line
///   (`length` byte, then the line) read as `KDEConnectPacket` and, when it is a `kdeconnect.pair` with a boolean
///   `pair`, handed on as the service does.
///
/// Checked besides "no crash":
/// - Lines: no line longer than the limit is returned, and the splitter refuses a line exactly when it grows past
///   the limit; every line is non-empty and holds no newline; what the splitter buffers between reads is the
///   unfinished line, never more than the limit (seen by feeding a copy a newline).
/// - Packets: the type is `kdeconnect.` and one to three parts of lowercase letters and `_` (at most 64 bytes); a
///   payload size is -1 or more, a payload port 1–65535; `line()` is one line that reads back as an equal packet
///   and encodes to the same bytes again.
/// - Identities: the device ID is 32 to 38 bytes of ASCII letters, digits, `_` and `-`, exactly as sent; the name is
///   the one sent with `"',;:.!?()[]<>`, control characters (C0, DEL, C1), bidi overrides and isolates taken out,
///   cut to 32 Unicode scalars and without spaces at either end (checked apart: not empty, none of those scalars,
///   cleaning it again changes nothing); the type at most 16 characters (`desktop` when none
///   is given); the protocol version 1–100; at most 256 capabilities each way; the TCP port 1–65535 or none. The
///   identity's own packet reads back as an equal identity. A refused identity is refused for a reason that holds:
///   a bad device ID, a protocol version outside 1–100, or a name that is empty once cleaned; and an identity with
///   none of those is never refused.
/// - Pairing (`KDEConnectPairing`, time in seconds, the 30 s of `KDEConnectPairing.timeout`): a device becomes paired
///   only when our user accepts its request (`answer(accept: true)`, or asking it back) and we tell it so
///   (`pair: true`), or when it said `pair: true` within 30 s of our request and our user then confirmed the key
///   (its yes alone pairs nothing: the user is asked to confirm exactly then); a device's request whose timestamp is
///   more than 30 minutes from our clock is refused (`pair: false`) and asks nobody; only the device's `pair: false` unpairs
///   a paired device; a tick 30 s or more after a request (ours, or the device's latest) ends it with a failure, and
///   a tick otherwise changes nothing; a device's packet that comes 30 s or more after a pending request ends that
///   request first; the user is asked only when a request of the device's begins, with the timestamp it sent; we
///   send `pair: true` with a timestamp only when we ask, `pair: false` only when our user refuses or does not confirm
///   in time, or a request is stale, `pair: true`
///   without one only when we accept or a paired device asks again; the user's answer when nothing is asked does
///   nothing; the verification key's timestamp is our request's, or the device's latest; `.paired` is reported only
///   by a step that leaves the device paired, `.unpaired` only when a paired device or a request is ended so.
///   (Our user's own answer, or asking back, is taken until the tick ends the request: the service ticks every
///   second.)
public func fuzzKDEConnectPackets(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let selector = input.first else { return }
    let rest = input.dropFirst()
    switch selector & 0x03 {
    case 1:
        try checkIdentityInput(Array(rest), asLink: selector & 0x04 != 0)
    case 2:
        try checkPairing(Array(rest), paired: selector & 0x04 != 0)
    default:
        let limits = [configured.maximumIdentityBytes, configured.maximumPacketBytes, 64, 1024]
        let chunks = [1, 2, 3, 7, 64, 1000, 4096, Int.max]
        try checkStream(
            Array(rest),
            limit: limits[Int(selector >> 2 & 0x03)],
            chunk: chunks[Int(selector >> 4 & 0x07)]
        )
    }
}

/// The limits the service runs with.
private let configured = KDEConnectLimits()

// MARK: Lines and packets

private func checkStream(_ bytes: [UInt8], limit: Int, chunk: Int) throws(FuzzInvariantViolation) {
    var lines = KDEConnectLines(limit: limit)
    try require(lines.limit == limit, "a splitter made with the limit \(limit) says \(lines.limit)")
    // The model: the unfinished line, which may grow to `limit` bytes and no further.
    var pending: [UInt8] = []
    let count = bytes.isEmpty ? 0 : (bytes.count - 1) / chunk + 1
    // Looking at what is buffered copies it; at most about 64 looks per input keep long streams fast.
    let every = max(1, count / 64)
    var start = 0
    var index = 0
    while start < bytes.count {
        let end = bytes.count - start > chunk ? start + chunk : bytes.count
        let piece = bytes[start..<end]
        var expected: [[UInt8]] = []
        var overflow = false
        for byte in piece {
            if byte == 0x0A {
                if !pending.isEmpty { expected.append(pending) }
                pending.removeAll(keepingCapacity: true)
            } else if pending.count < limit {
                pending.append(byte)
            } else {
                overflow = true
                break
            }
        }
        let found: [[UInt8]]
        do {
            found = try lines.feed(piece)
        } catch {
            try require(overflow, "a line of at most \(limit) bytes was refused: \(error)")
            try require(error == .tooLong(limit: limit), "a line over the limit was refused as \(error)")
            return
        }
        try require(!overflow, "a line over the limit of \(limit) bytes was let through")
        try require(found == expected, "the lines found are not the stream's lines up to each newline")
        for line in found {
            try require(line.count <= limit, "a line of \(line.count) bytes, over the limit of \(limit)")
            try require(!line.isEmpty && !line.contains(0x0A), "an empty line, or one holding a newline")
            try checkPacketLine(line)
        }
        if index % every == 0 || end == bytes.count {
            try requireBuffered(lines, pending, limit: limit)
        }
        start = end
        index += 1
    }
}

/// What the splitter holds between reads is the unfinished line: a newline on a copy of it returns exactly that.
private func requireBuffered(
    _ lines: KDEConnectLines,
    _ pending: [UInt8],
    limit: Int
) throws(FuzzInvariantViolation) {
    var probe = lines
    let held: [[UInt8]]
    do {
        held = try probe.feed(CollectionOfOne(0x0A))
    } catch {
        throw violation("a newline was refused: \(error)")
    }
    try require(held == (pending.isEmpty ? [] : [pending]), "the splitter holds other than the unfinished line")
    try require(held.allSatisfy { $0.count <= limit }, "the splitter holds more than the limit of \(limit) bytes")
}

/// One line as a link reads it: a packet, and an identity packet on to `KDEConnectIdentity`.
private func checkPacketLine(_ line: [UInt8]) throws(FuzzInvariantViolation) {
    guard let packet = try? KDEConnectPacket(line: line) else { return }
    try checkPacket(packet)
    if packet.type == KDEConnectIdentity.packetType { try checkIdentity(packet) }
}

private func checkPacket(_ packet: KDEConnectPacket) throws(FuzzInvariantViolation) {
    try require(isPacketType(packet.type), "the packet type \(packet.type.debugDescription) was let through")
    try require(packet.payloadSize.map { $0 >= -1 } ?? true, "the payload size \(packet.payloadSize ?? 0)")
    try require(packet.payloadPort.map { (1...65535).contains($0) } ?? true, "the port \(packet.payloadPort ?? 0)")
    let line = packet.line()
    try require(line.last == 0x0A, "a packet's line does not end in a newline")
    try require(line.firstIndex(of: 0x0A) == line.count - 1, "a packet's line holds a newline before its end")
    let reread: KDEConnectPacket
    do {
        reread = try KDEConnectPacket(line: line.dropLast())
    } catch {
        throw violation("a packet's own line does not read back (\(error)): \(String(decoding: line, as: UTF8.self))")
    }
    try require(
        reread == packet,
        "a packet did not round-trip: \(packet) → \(String(decoding: line, as: UTF8.self)) → \(reread)"
    )
    try require(reread.line() == line, "a packet read back from its line encodes to other bytes")
}

/// `kdeconnect.` and one to three parts of ASCII lowercase letters and `_`, at most 64 bytes.
private func isPacketType(_ type: String) -> Bool {
    let parts = Array(type.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard type.utf8.count <= 64, (2...4).contains(parts.count), parts[0].elementsEqual("kdeconnect".utf8) else {
        return false
    }
    return parts.dropFirst().allSatisfy { part in
        !part.isEmpty && part.allSatisfy { (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "_") }
    }
}

// MARK: Identities

private func checkIdentityInput(_ bytes: [UInt8], asLink: Bool) throws(FuzzInvariantViolation) {
    let line: [UInt8]
    if asLink {
        // A link's first line, read under the identity limit.
        var lines = KDEConnectLines(limit: configured.maximumIdentityBytes)
        guard let first = (try? lines.feed(bytes))?.first else { return }
        try require(first.count <= configured.maximumIdentityBytes, "an identity line over the limit was read")
        line = first
    } else {
        // An announcement: one datagram of at most the identity limit, a final newline dropped.
        guard bytes.count <= configured.maximumIdentityBytes else { return }
        line = bytes.last == 0x0A ? Array(bytes.dropLast()) : bytes
    }
    guard let packet = try? KDEConnectPacket(line: line) else { return }
    try checkPacket(packet)
    try checkIdentity(packet)
}

private func checkIdentity(_ packet: KDEConnectPacket) throws(FuzzInvariantViolation) {
    let sentID = packet.body["deviceId"]?.string
    let sentVersion = packet.body["protocolVersion"]?.int64
    let cleaned = expectedName(packet.body["deviceName"]?.string ?? "")
    let identity: KDEConnectIdentity
    do {
        identity = try KDEConnectIdentity(packet: packet)
    } catch {
        switch error {
        case .notAnIdentity:
            try require(packet.type != KDEConnectIdentity.packetType, "an identity packet was refused as another")
        case .badDeviceID:
            try require(!(sentID.map(isDeviceID) ?? false), "the device ID \(sentID ?? "") was refused")
        case .badField("protocolVersion"):
            try require(!(sentVersion.map { (1...100).contains($0) } ?? false), "the protocol version was refused")
        case .badField("deviceName"):
            try require(cleaned.isEmpty, "the name \(cleaned.debugDescription) was refused as empty")
        case .badField(let field):
            throw violation("an identity was refused for the field \(field), which it does not check")
        }
        return
    }
    try require(packet.type == KDEConnectIdentity.packetType, "a \(packet.type) packet was read as an identity")
    try require(identity.deviceId == sentID, "the device ID read is not the one sent")
    try require(isDeviceID(identity.deviceId), "the device ID \(identity.deviceId.debugDescription) was let through")
    try require(
        (1...100).contains(identity.protocolVersion) && Int64(identity.protocolVersion) == sentVersion,
        "the protocol version \(identity.protocolVersion) was let through"
    )
    try require(!cleaned.isEmpty, "the name \(cleaned.debugDescription) is empty once cleaned, and was let through")
    try requireCleanName(identity.deviceName)
    try require(
        Array(identity.deviceName.unicodeScalars) == cleaned,
        "the name \(identity.deviceName.debugDescription) is not the one sent, cleaned"
    )
    try require(identity.deviceType.count <= 16, "a device type of \(identity.deviceType.count) characters")
    if packet.body["deviceType"]?.string == nil {
        try require(identity.deviceType == "desktop", "no device type was read as \(identity.deviceType)")
    }
    try require(identity.incomingCapabilities.count <= 256, "\(identity.incomingCapabilities.count) capabilities in")
    try require(identity.outgoingCapabilities.count <= 256, "\(identity.outgoingCapabilities.count) capabilities out")
    try require(identity.tcpPort.map { (1...65535).contains($0) } ?? true, "the TCP port \(identity.tcpPort ?? 0)")
    let again: KDEConnectIdentity
    do {
        again = try KDEConnectIdentity(packet: KDEConnectPacket(line: identity.packet.line().dropLast()))
    } catch {
        throw violation("an identity's own packet does not read back: \(error)")
    }
    try require(again == identity, "an identity did not round-trip: \(identity) → \(again)")
}

/// 32 to 38 bytes of ASCII letters, digits, `_` and `-`.
private func isDeviceID(_ id: String) -> Bool {
    (32...38).contains(id.utf8.count)
        && id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
}

/// A scalar a received name loses: the protocol's forbidden punctuation, control characters, bidi overrides and
/// isolates.
private func isRemovedFromNames(_ scalar: Unicode.Scalar) -> Bool {
    "\"',;:.!?()[]<>".unicodeScalars.contains(scalar) || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
}

private func isSpace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
}

/// The name a received one should become (docs/kdeconnect.md, "Identity"): its first 32 scalars that are not
/// removed, without spaces at either end.
private func expectedName(_ name: String) -> [Unicode.Scalar] {
    var kept = Array(name.unicodeScalars.lazy.filter { !isRemovedFromNames($0) }.prefix(32))
    while let last = kept.last, isSpace(last) { kept.removeLast() }
    while let first = kept.first, isSpace(first) { kept.removeFirst() }
    return kept
}

private func requireCleanName(_ name: String) throws(FuzzInvariantViolation) {
    let scalars = Array(name.unicodeScalars)
    try require(!scalars.isEmpty, "an empty name was let through")
    try require(scalars.count <= 32, "a name of \(scalars.count) scalars was let through")
    try require(!scalars.contains(where: isRemovedFromNames), "the name \(name.debugDescription) was not cleaned")
    try require(
        !isSpace(scalars[0]) && !isSpace(scalars[scalars.count - 1]),
        "the name \(name.debugDescription) starts or ends in a space"
    )
    try require(KDEConnectIdentity.cleanName(name) == name, "cleaning the name \(name.debugDescription) changes it")
}

// MARK: Pairing

/// The timestamps a script's requests carry: seconds since 1970, as version 8 sends them.
private let baseTimestamp: Int64 = 1_800_000_000
/// Our clock: requests with a script byte below 100 are more than 30 minutes before it (stale), the rest within.
private let ourClock: Int64 = baseTimestamp + 1_900

private enum PairingStep {
    case request(timestamp: Int64)
    case answer(accept: Bool)
    case received(pair: Bool, timestamp: Int64?)
    case tick
}

private func checkPairing(_ script: [UInt8], paired: Bool) throws(FuzzInvariantViolation) {
    var pairing = KDEConnectPairing(paired: paired)
    try require(pairing.state == (paired ? .paired : .unpaired), "a new pairing is not in the state it was made in")
    var now = ContinuousClock.now
    var offset = 0
    func next() -> UInt8? {
        guard offset < script.count else { return nil }
        defer { offset += 1 }
        return script[offset]
    }
    while let op = next() {
        let before = pairing.state
        let step: PairingStep
        let actions: [KDEConnectPairing.Action]
        switch op & 0x07 {
        case 0:
            let timestamp = baseTimestamp + Int64(next() ?? 0)
            step = .request(timestamp: timestamp)
            actions = pairing.request(at: now, timestamp: timestamp)
        case 1, 2:
            step = .answer(accept: op & 0x07 == 1)
            actions = pairing.answer(accept: op & 0x07 == 1)
        case 3:
            let byte = next() ?? 0
            let timestamp = byte == 0 ? nil : baseTimestamp + Int64(byte)
            step = .received(pair: true, timestamp: timestamp)
            actions = pairing.received(pair: true, timestamp: timestamp, at: now, clock: ourClock)
        case 4:
            step = .received(pair: false, timestamp: nil)
            actions = pairing.received(pair: false, timestamp: nil, at: now, clock: ourClock)
        case 5:
            now += .milliseconds(500 * Int(next() ?? 0))
            continue
        case 6:
            step = .tick
            actions = pairing.tick(at: now)
        default:
            let length = Int(next() ?? 0)
            let end = min(script.count, offset + length)
            let line = Array(script[offset..<end])
            offset = end
            guard let packet = try? KDEConnectPacket(line: line) else { continue }
            try checkPacket(packet)
            // As the service does: a pair packet with a boolean `pair`, its `timestamp` when it reads as one.
            guard packet.type == "kdeconnect.pair", let pair = packet.body["pair"]?.bool else { continue }
            let timestamp = packet.body["timestamp"]?.int64
            step = .received(pair: pair, timestamp: timestamp)
            actions = pairing.received(pair: pair, timestamp: timestamp, at: now, clock: ourClock)
        }
        try checkPairingStep(step, before: before, after: pairing, actions: actions, now: now)
    }
}

/// When a pending request began, and whether it is ours.
private func pending(_ state: KDEConnectPairing.State) -> (since: ContinuousClock.Instant, ours: Bool)? {
    switch state {
    case .requested(let since, _): (since, true)
    case .asked(let since, _): (since, false)
    case .confirming(let since, _): (since, true)
    case .unpaired, .paired: nil
    }
}

private func checkPairingStep(
    _ step: PairingStep,
    before: KDEConnectPairing.State,
    after pairing: KDEConnectPairing,
    actions: [KDEConnectPairing.Action],
    now: ContinuousClock.Instant
) throws(FuzzInvariantViolation) {
    let after = pairing.state
    let timeout = KDEConnectPairing.timeout
    let lapsed = pending(before).map { $0.since.duration(to: now) >= timeout } ?? false
    let failures = actions.filter { if case .failed = $0 { true } else { false } }.count
    let pairedReports = actions.filter { $0 == .paired }.count
    let trace = { "\(step) in \(before) at \(now) → \(after), \(actions)" }
    let stale: Bool
    if case .received(pair: true, let timestamp?) = step {
        stale =
            timestamp.subtractingReportingOverflow(ourClock).overflow
            || timestamp.subtractingReportingOverflow(ourClock).partialValue.magnitude > 1_800
    } else {
        stale = false
    }

    // Becoming paired.
    if before != .paired && after == .paired {
        switch (step, before) {
        case (.answer(accept: true), .asked), (.request, .asked):
            try require(
                actions.contains(.send(pair: true, timestamp: nil)),
                "our user accepted but the device is not told: \(trace())"
            )
        case (.answer(accept: true), .confirming):
            try require(actions == [.paired], "a confirmed key did more than pair: \(trace())")
        default:
            throw violation("paired without our user's accept of its request or its accept of ours: \(trace())")
        }
        try require(pairedReports == 1, "a device that became paired was reported paired \(pairedReports) times")
    }
    try require(pairedReports == 0 || after == .paired, ".paired was reported by a step that left it \(after)")

    // Leaving paired: only the device's own no.
    if before == .paired && after != .paired {
        guard case .received(pair: false, _) = step else {
            throw violation("a paired device was unpaired by other than its own pair: false: \(trace())")
        }
        try require(after == .unpaired && actions == [.unpaired], "an unpairing is not reported as one: \(trace())")
    }
    if actions.contains(.unpaired) {
        let refused: Bool
        if case .answer(accept: false) = step, case .asked = before { refused = true } else { refused = false }
        try require(after == .unpaired && (before == .paired || refused), ".unpaired reported by: \(trace())")
    }

    // Failures end a pending request and nothing else.
    if failures > 0 {
        try require(pending(before) != nil, "a failure was reported when nothing was pending: \(trace())")
        try require(failures == 1, "\(failures) failures reported by one step: \(trace())")
        try require(after != .paired, "a failure was reported by a step that paired: \(trace())")
    }

    switch step {
    case .tick:
        if lapsed {
            let told = isConfirming(before) ? 1 : 0
            try require(
                after == .unpaired && failures == 1 && actions.count == 1 + told,
                "a tick did not end: \(trace())"
            )
        } else {
            try require(after == before && actions.isEmpty, "a tick before the timeout changed something: \(trace())")
        }
    case .received(let pair, let timestamp):
        if lapsed {
            // The end of the lapsed request comes first (after the pair: false that tells the device, when it is
            // ours that it accepted).
            let told = isConfirming(before) ? 1 : 0
            try require(
                actions.dropFirst(told).first.map(isFailure) == true,
                "a lapsed request was not ended first: \(trace())"
            )
        }
        if pending(before) != nil, !lapsed, !pair {
            try require(after == .unpaired && failures == 1, "a refusal or withdrawal did not end it: \(trace())")
        }
        if !pair, before == .unpaired {
            try require(after == .unpaired && actions.isEmpty, "a no that answers nothing did something: \(trace())")
        }
        if pair, stale, before == .unpaired {
            try require(
                after == .unpaired && actions == [.send(pair: false, timestamp: nil)],
                "a stale request was not refused: \(trace())"
            )
        }
        if case .confirming(let since, let sent) = after {
            let answered = isRequested(before) && !lapsed && pair
            try require(answered || (before == after), "confirming without a yes to our request: \(trace())")
            if answered, case .requested(_, let requested) = before {
                try require(since == now, "the confirmation is not timed from now: \(trace())")
                try require(sent == requested, "the key's timestamp is not our request's: \(trace())")
            }
        }
        if case .asked(let since, let sent) = after {
            try require(pair, "a device's no left a request of it pending: \(trace())")
            try require(since == now && sent == timestamp, "a device's request is not timed from now: \(trace())")
            try require(pairing.requestTimestamp == timestamp, "the key's timestamp is not the device's: \(trace())")
        }
    case .request(let timestamp):
        if case .requested(let since, let sent) = after {
            try require(since == now && sent == timestamp, "our request is not timed from now: \(trace())")
            try require(pairing.requestTimestamp == timestamp, "the key's timestamp is not our request's: \(trace())")
            try require(
                actions.contains(.send(pair: true, timestamp: timestamp)),
                "our request was not sent with its timestamp: \(trace())"
            )
        }
        try require(
            after == .paired || isRequested(after) || (isConfirming(before) && after == before && actions.isEmpty),
            "asking to pair left it \(after): \(trace())"
        )
    case .answer:
        if case .asked = before {
            try require(after == .paired || after == .unpaired, "an answer left the request pending: \(trace())")
        } else if isConfirming(before) {
            try require(after == .paired || after == .unpaired, "an answer left the request pending: \(trace())")
        } else {
            try require(
                after == before && actions.isEmpty,
                "an answer when nothing was asked did something: \(trace())"
            )
        }
    }

    // The user is asked exactly when a request of the device's begins.
    let asks: [Int64?] = actions.compactMap { action in
        if case .askUser(let timestamp) = action { return .some(timestamp) }
        return nil
    }
    let begins: Bool
    if case .asked = after, case .received(pair: true, _) = step {
        if case .asked = before { begins = lapsed } else { begins = before != .paired }
    } else {
        begins = false
    }
    try require(asks.count == (begins ? 1 : 0), "the user was asked \(asks.count) times: \(trace())")
    let confirms = actions.filter { if case .confirmUser = $0 { true } else { false } }.count
    let accepted = isConfirming(after) && !isConfirming(before)
    try require(confirms == (accepted ? 1 : 0), "the user was asked to confirm \(confirms) times: \(trace())")
    if case .received(_, let timestamp) = step, let asked = asks.first {
        try require(asked == timestamp, "the user was asked with another timestamp than the device's: \(trace())")
    }

    // What we send.
    for action in actions {
        guard case .send(let pair, let timestamp) = action else { continue }
        switch (pair, timestamp, step) {
        case (true, let sent?, .request(let asked)):
            try require(sent == asked, "our request was sent with another timestamp: \(trace())")
        case (true, nil, _):
            let accepted = before != .paired && after == .paired
            let askedAgain: Bool
            if case .received(pair: true, _) = step { askedAgain = before == .paired } else { askedAgain = false }
            try require(accepted || askedAgain, "pair: true sent when we neither accept nor stay paired: \(trace())")
        case (false, nil, .answer(accept: false)):
            break
        case (false, nil, .tick), (false, nil, .received):
            // A stale request is refused in the unpaired state: the one before the step, or the one a pending
            // request lapsed to as the step began.
            try require(
                (isConfirming(before) && lapsed) || (stale && (before == .unpaired || lapsed)),
                "pair: false sent on: \(trace())"
            )
        default:
            throw violation("sent pair: \(pair) (timestamp \(String(describing: timestamp))) on: \(trace())")
        }
    }

    // The verification key's timestamp.
    switch after {
    case .requested(_, let timestamp): try require(pairing.requestTimestamp == timestamp, "key timestamp: \(trace())")
    case .asked(_, let timestamp): try require(pairing.requestTimestamp == timestamp, "key timestamp: \(trace())")
    case .confirming(_, let timestamp):
        try require(pairing.requestTimestamp == timestamp, "key timestamp: \(trace())")
    case .unpaired, .paired: try require(pairing.requestTimestamp == nil, "a key timestamp with no request: \(trace())")
    }
}

private func isFailure(_ action: KDEConnectPairing.Action) -> Bool {
    if case .failed = action { true } else { false }
}

private func isRequested(_ state: KDEConnectPairing.State) -> Bool {
    if case .requested = state { true } else { false }
}

private func isConfirming(_ state: KDEConnectPairing.State) -> Bool {
    if case .confirming = state { true } else { false }
}
