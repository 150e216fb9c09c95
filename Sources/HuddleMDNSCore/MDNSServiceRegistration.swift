public import HuddleDNS

/// A service to advertise: an instance name, a type, a port, TXT data and optional subtypes (RFC 6763 §4, §6, §7.1).
public struct MDNSServiceRegistration: Hashable, Sendable {
    /// The user-visible instance name: any UTF-8 up to 63 bytes, dots and spaces allowed (RFC 6763 §4.1.1).
    public var instanceName: String
    /// The service type; its subtype field is ignored (use ``subtypes``).
    public var type: MDNSServiceType
    public var port: UInt16
    public var txt: MDNSTXTRecord
    /// Subtype labels such as `_printer` (RFC 6763 §7.1).
    public var subtypes: [String]

    /// Makes a registration, checking the instance name and subtypes.
    ///
    /// - Throws: ``MDNSError`` with code `.invalidInstanceName` or `.invalidServiceType`.
    public init(
        instanceName: String,
        type: MDNSServiceType,
        port: UInt16,
        txt: MDNSTXTRecord = MDNSTXTRecord(),
        subtypes: [String] = []
    ) throws {
        try Self.validate(instanceName: instanceName)
        for subtype in subtypes where subtype.isEmpty || subtype.utf8.count > 63 {
            throw MDNSError(.invalidServiceType, "subtype '\(subtype)' must be 1 to 63 bytes")
        }
        self.instanceName = instanceName
        self.type = type
        self.type.subtype = nil
        self.port = port
        self.txt = txt
        self.subtypes = subtypes
    }

    /// Checks an instance name: 1–63 bytes of UTF-8 with no control characters (RFC 6763 §4.1.1).
    public static func validate(instanceName: String) throws {
        let bytes = Array(instanceName.utf8)
        guard (1...DNSName.maxLabelLength).contains(bytes.count) else {
            throw MDNSError(.invalidInstanceName, "instance name '\(instanceName)' must be 1 to 63 bytes of UTF-8")
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw MDNSError(.invalidInstanceName, "instance name must not contain control characters")
        }
    }

    /// The full instance name, `<instance>.<type>.local.`.
    public var instanceDNSName: DNSName {
        DNSName(uncheckedLabels: [Array(self.instanceName.utf8)] + self.type.name.labels)
    }

    /// The next name after a conflict (RFC 6762 §9): `Name` → `Name (2)` → `Name (3)`, kept within 63 bytes.
    public static func nextInstanceName(after name: String) -> String {
        var base = name
        var number = 2
        if name.hasSuffix(")"), let open = name.lastIndex(of: "(") {
            let digits = name[name.index(after: open)..<name.index(before: name.endIndex)]
            if let value = Int(digits), value >= 2, open > name.startIndex,
                name[name.index(before: open)] == " "
            {
                base = String(name[..<name.index(before: open)])
                number = value + 1
            }
        }
        let suffix = " (\(number))"
        while base.utf8.count + suffix.utf8.count > DNSName.maxLabelLength { base.removeLast() }
        return base + suffix
    }

    /// The next host label after a conflict: `host` → `host-2` → `host-3` (RFC 6762 §9 convention).
    public static func nextHostLabel(after label: String) -> String {
        var base = label
        var number = 2
        if let dash = label.lastIndex(of: "-"), let value = Int(label[label.index(after: dash)...]), value >= 2 {
            base = String(label[..<dash])
            number = value + 1
        }
        let suffix = "-\(number)"
        while base.utf8.count + suffix.utf8.count > DNSName.maxLabelLength { base.removeLast() }
        return base + suffix
    }
}

/// Identifies a registered service inside one responder.
public struct MDNSServiceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(self.rawValue)" }
}
