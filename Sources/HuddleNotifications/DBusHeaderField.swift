/// The header field codes (D-Bus Specification, "Header Fields"), each with the one type its value must have.
enum DBusHeaderField: UInt8 {
    case path = 1
    case interface = 2
    case member = 3
    case errorName = 4
    case replySerial = 5
    case destination = 6
    case sender = 7
    case signature = 8
    case unixFDs = 9

    var type: DBusType {
        switch self {
        case .path: .objectPath
        case .interface, .member, .errorName, .destination, .sender: .string
        case .replySerial, .unixFDs: .uint32
        case .signature: .signature
        }
    }
}
