import Foundation
import HuddleLocalSendWire
import HuddleWire

/// LocalSend messages from a peer (docs/localsend.md, "Limits", "Receiving"; docs/security.md §5). The first byte
/// says what the rest is:
///
/// - bits 0–1: 0 a device info (a multicast message, a `/register` or `/info` body), 1 a prepare-upload, 2 a
///   prepare-upload answer, 3 a list of device infos, one a line (`\n`), fed to `LocalSendDevices` as the service
///   does: `heard`, then `mayAnswer` for an announcement that was not ignored. Each line's first byte says where the
///   message came from (bits 0–1: one of four addresses) and how many seconds passed before it (bits 2–7: 0–63).
/// - bit 2, for a single message: the default limits, or small ones an input of a few kilobytes can reach.
/// - bits 2–3 and 4–5, for a list: how many devices are kept (1–4) and answers a device gets a minute (1–4).
///
/// Whatever parses must obey the limits it was parsed under and, encoded with `JSONEncoder`, parse again to the same
/// value (a device info's `download` is always written, false when unknown: that is the one difference allowed).
/// A message over its byte limit is refused as too large, and only then. The device table never holds more than
/// its bound or this device's own fingerprint; no device gets more answers in 60 s than its rate allows, even when
/// it is forgotten and heard again in between, and no more devices than the table holds get answers in 60 s.
public func fuzzLocalSendMessages(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    guard let selector = input.first else { return }
    let message = Array(input.dropFirst())
    let limits = selector & 0x04 == 0 ? LocalSendLimits() : smallLimits
    switch selector & 0x03 {
    case 0: try checkDeviceInfo(message, limits: limits)
    case 1: try checkPrepareUpload(message, limits: limits)
    case 2: try checkPrepareUploadAnswer(message, limits: limits)
    default:
        var tableLimits = smallLimits
        tableLimits.maximumDevices = 1 + Int(selector >> 2 & 0x03)
        tableLimits.registerAnswersPerMinute = 1 + Int(selector >> 4 & 0x03)
        try checkDevices(message, limits: tableLimits)
    }
}

/// Limits small enough that inputs of a few kilobytes cross each of them.
private let smallLimits: LocalSendLimits = {
    var limits = LocalSendLimits()
    limits.maximumInfoBytes = 1024
    limits.maximumPrepareUploadBytes = 4096
    limits.maximumFiles = 4
    limits.maximumTextBytes = 64
    limits.maximumAliasBytes = 32
    return limits
}()

/// The fingerprint of the device whose table the list feeds (lowercase here; the table keeps it uppercase).
private let ownFingerprint = "5e0a3c8d71f24b96a0d2c4e6f8193b5d7f9e1a2c3b4d5e6f708192a3b4c5d6e7"

// MARK: Single messages

private func checkDeviceInfo(_ bytes: [UInt8], limits: LocalSendLimits) throws(FuzzInvariantViolation) {
    let result = parse { () throws(LocalSendMessageError) in
        try LocalSendMessages.deviceInfo(from: bytes, limits: limits)
    }
    try requireSizeRule(result, count: bytes.count, limit: limits.maximumInfoBytes)
    guard case .success(let info) = result else { return }
    try requireWithinLimits(info, limits)
    let encoded = try encode(info)
    // The encoding may be longer than the bytes read (`JSONEncoder` writes `/` as `\/`, a control character as
    // `\u00XX`), so the round trip allows its length; every other limit stays.
    var again = limits
    again.maximumInfoBytes = max(limits.maximumInfoBytes, encoded.count)
    let reread = try? LocalSendMessages.deviceInfo(from: encoded, limits: again)
    try require(reread == asEncoded(info), "a device info did not round-trip: \(info) → \(String(describing: reread))")
}

private func checkPrepareUpload(_ bytes: [UInt8], limits: LocalSendLimits) throws(FuzzInvariantViolation) {
    let result = parse { () throws(LocalSendMessageError) in
        try LocalSendMessages.prepareUpload(from: bytes, limits: limits)
    }
    try requireSizeRule(result, count: bytes.count, limit: limits.maximumPrepareUploadBytes)
    guard case .success(let request) = result else { return }
    try requireWithinLimits(request.info, limits)
    try requireWithinLimits(request.files, limits)
    if let text = LocalSendMessages.text(of: request) {
        let file = request.files.values.first
        try require(request.files.count == 1, "a text message of \(request.files.count) files")
        try require(file?.fileType.hasPrefix("text/") == true, "a text message whose file is not text/…")
        try require(file?.preview == text, "a text message that is not its file's preview")
        try require(text.utf8.count <= limits.maximumTextBytes, "a text of \(text.utf8.count) bytes was let through")
    }
    let encoded = try encode(request)
    var again = limits
    again.maximumPrepareUploadBytes = max(limits.maximumPrepareUploadBytes, encoded.count)
    let reread = try? LocalSendMessages.prepareUpload(from: encoded, limits: again)
    var expected = request
    expected.info = asEncoded(request.info)
    try require(reread == expected, "a prepare-upload did not round-trip")
}

private func checkPrepareUploadAnswer(_ bytes: [UInt8], limits: LocalSendLimits) throws(FuzzInvariantViolation) {
    let result = parse { () throws(LocalSendMessageError) in
        try LocalSendMessages.prepareUploadAnswer(from: bytes, limits: limits)
    }
    try requireSizeRule(result, count: bytes.count, limit: limits.maximumPrepareUploadBytes)
    guard case .success(let answer) = result else { return }
    let encoded = try encode(answer)
    var again = limits
    again.maximumPrepareUploadBytes = max(limits.maximumPrepareUploadBytes, encoded.count)
    let reread = try? LocalSendMessages.prepareUploadAnswer(from: encoded, limits: again)
    try require(reread == answer, "a prepare-upload answer did not round-trip")
}

/// A message over its byte limit is refused as too large (before it is read), and nothing else is.
private func requireSizeRule<Message>(
    _ result: Result<Message, LocalSendMessageError>,
    count: Int,
    limit: Int
) throws(FuzzInvariantViolation) {
    switch result {
    case .success:
        try require(count <= limit, "a message of \(count) bytes was read, over the limit of \(limit)")
    case .failure(.tooLarge(let said)):
        try require(count > limit, "a message of \(count) bytes was refused as larger than \(limit)")
        try require(said == limit, "a message was refused as larger than \(said), the limit is \(limit)")
    case .failure(let error):
        try require(count <= limit, "a message of \(count) bytes, over the limit of \(limit), was read: \(error)")
    }
}

private func requireWithinLimits(
    _ info: LocalSendDeviceInfo,
    _ limits: LocalSendLimits
) throws(FuzzInvariantViolation) {
    try require(!info.alias.isEmpty, "an empty alias was let through")
    try require(info.alias.utf8.count <= limits.maximumAliasBytes, "an alias of \(info.alias.utf8.count) bytes")
    try require(info.fingerprint.utf8.count <= 256, "a fingerprint of \(info.fingerprint.utf8.count) bytes")
    try require(info.port.map { (1...65535).contains($0) } ?? true, "the port \(info.port ?? 0) was let through")
    try require([nil, "http", "https"].contains(info.protocol), "the protocol \(info.protocol ?? "") was let through")
    for field in [info.version, info.deviceModel ?? "", info.deviceType ?? ""] {
        try require(field.utf8.count <= 256, "a device info field of \(field.utf8.count) bytes")
    }
}

/// What a receiver relies on in an offer (docs/localsend.md, "Receiving" 1): 1 to `maximumFiles` files, each under
/// the key that is its ID, each name a plain file name (checked here without `TransferName` as well as with it),
/// no name twice, a SHA-256 of 64 ASCII hex digits when there is one, a preview within the text limit.
private func requireWithinLimits(
    _ files: [String: LocalSendFileMetadata],
    _ limits: LocalSendLimits
) throws(FuzzInvariantViolation) {
    try require(!files.isEmpty, "an offer of no files was let through")
    try require(files.count <= limits.maximumFiles, "an offer of \(files.count) files was let through")
    var names = Set<String>()
    for (key, file) in files {
        try require(
            key == file.id,
            "a file under the key \(key.debugDescription) has the ID \(file.id.debugDescription)"
        )
        let name = file.fileName
        try require(isPlainName(name), "the file name \(name.debugDescription) is not a plain name")
        try require((try? TransferName.validate(name)) == name, "TransferName refuses \(name.debugDescription)")
        try require(names.insert(name).inserted, "the file name \(name.debugDescription) is offered twice")
        if let sha256 = file.sha256 {
            let isHex = sha256.utf8.count == 64 && sha256.utf8.allSatisfy(isASCIIHexDigit)
            try require(isHex, "the sha256 \(sha256.debugDescription) is not 64 hex digits")
        }
        if let preview = file.preview {
            try require(preview.utf8.count <= limits.maximumTextBytes, "a preview of \(preview.utf8.count) bytes")
        }
    }
}

/// A name that stays in the directory it is written to: not empty, `.` or `..`, at most 255 bytes, no separator
/// (`/`, `\`) and no control character.
private func isPlainName(_ name: String) -> Bool {
    guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 255 else { return false }
    return name.unicodeScalars.allSatisfy { scalar in
        scalar != "/" && scalar != "\\" && scalar.value >= 0x20 && scalar.value != 0x7F
    }
}

private func isASCIIHexDigit(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
}

// MARK: The device table

/// Feeds each line's device info to the table as `LocalSendService.multicastArrived` does, and checks the table
/// and the answers after each.
private func checkDevices(_ bytes: [UInt8], limits: LocalSendLimits) throws(FuzzInvariantViolation) {
    var devices = LocalSendDevices(ownFingerprint: ownFingerprint, limits: limits)
    let own = ownFingerprint.uppercased()
    var now = ContinuousClock.now
    var answered: [String: [ContinuousClock.Instant]] = [:]
    for line in bytes.split(separator: 0x0A) {
        guard let control = line.first else { continue }
        now += .seconds(Int(control >> 2))
        let host = "10.0.0.\(1 + control & 0x03)"
        guard let info = try? LocalSendMessages.deviceInfo(from: line.dropFirst(), limits: limits) else { continue }
        let key = info.fingerprint.uppercased()
        let before = devices.device(info.fingerprint)
        let outcome = devices.heard(info, from: host, at: now)
        if key.isEmpty || key == own {
            try require(outcome == .ignored, "a message from this device or without a fingerprint was recorded")
        }
        switch outcome {
        case .ignored:
            break
        case .new(let device):
            try require(before == nil, "a device already held was heard as new")
            try require(devices.device(info.fingerprint) == device, "a new device is not held as reported")
            try require(device.host == host && device.lastHeard == now, "a new device is not where and when heard")
        case .changed(let device):
            try require(before != nil, "a device not held was heard as changed")
            try require(devices.device(info.fingerprint) == device, "a changed device is not held as reported")
            try require(device.host == host && device.lastHeard == now, "a changed device is not where and when heard")
        case .same(let device):
            try require(
                before?.info == device.info && before?.host == host,
                "a device heard as the same is not the same"
            )
            try require(devices.device(info.fingerprint) == device, "a device heard again is not held as reported")
        case .kept(let device):
            try require(before == device && device.isHTTPS, "a kept device is not the HTTPS one held before")
            try require(info.protocol == "http", "a claim other than plain HTTP was kept out")
            try require(devices.device(info.fingerprint) == before, "a plain-HTTP claim changed an HTTPS device")
        case .moveClaimed(let old, let claimed):
            try require(before == old && old.isHTTPS && old.host != host, "a move was claimed of no HTTPS device")
            try require(claimed.host == host, "a claimed move is not to where it was heard")
            try require(devices.device(info.fingerprint) == before, "an unproven claim moved an HTTPS device")
        }
        if outcome != .ignored, info.announce == true, devices.mayAnswer(info.fingerprint, at: now) {
            let recent = answered[key, default: []].filter { $0.duration(to: now) < .seconds(60) } + [now]
            answered[key] = recent
            try require(
                recent.count <= limits.registerAnswersPerMinute,
                "\(recent.count) answers to \(key) within 60 s (at most \(limits.registerAnswersPerMinute))"
            )
            let answeredDevices = answered.values.filter { times in
                times.contains { $0.duration(to: now) < .seconds(60) }
            }.count
            try require(
                answeredDevices <= limits.maximumDevices,
                "answers to \(answeredDevices) devices within 60 s (at most \(limits.maximumDevices))"
            )
        }
        try requireBounded(devices, own: own)
    }
}

private func requireBounded(_ table: LocalSendDevices, own: String) throws(FuzzInvariantViolation) {
    let limit = table.limits.maximumDevices
    try require(table.devices.count <= limit, "\(table.devices.count) devices held (at most \(limit))")
    for (key, device) in table.devices {
        try require(key.uppercased() != own, "this device's own fingerprint is held as a device")
        try require(!key.isEmpty, "a device without a fingerprint is held")
        try require(device.key == key && device.info.fingerprint == key, "a device is held under another key")
        try require(device.info.announce == nil, "a device is held with its multicast-only field")
    }
}

// MARK: Helpers

private func parse<Message>(
    _ body: () throws(LocalSendMessageError) -> Message
) -> Result<Message, LocalSendMessageError> {
    do {
        return .success(try body())
    } catch {
        return .failure(error)
    }
}

private func encode(_ value: some Encodable) throws(FuzzInvariantViolation) -> [UInt8] {
    do {
        return Array(try JSONEncoder().encode(value))
    } catch {
        throw violation("a parsed message does not encode: \(error)")
    }
}

/// `info` as its encoding says it: `download` is always written, false when unknown.
private func asEncoded(_ info: LocalSendDeviceInfo) -> LocalSendDeviceInfo {
    var info = info
    info.download = info.download ?? false
    return info
}
