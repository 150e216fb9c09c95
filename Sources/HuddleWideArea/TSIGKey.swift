import Foundation
public import HuddleDNS

/// A TSIG key (RFC 8945 §4): its name, its algorithm and its secret, as BIND's key files write them:
///
/// ```
/// key "huddle-update" {
///     algorithm hmac-sha256;
///     secret "base64…";
/// };
/// ```
public struct TSIGKey: Hashable, Sendable {
    /// The algorithms this side signs with (RFC 8945 §6): HMAC-SHA256 only.
    public static let hmacSHA256: DNSName = "hmac-sha256."

    public var name: DNSName
    public var algorithm: DNSName
    public var secret: [UInt8]

    public init(name: DNSName, algorithm: DNSName = Self.hmacSHA256, secret: [UInt8]) {
        self.name = name
        self.algorithm = algorithm
        self.secret = secret
    }

    /// Reads the first key of a BIND key file (`tsig-keygen` output).
    ///
    /// - Throws: ``TSIGError/badKeyFile(_:)`` saying what is missing or unsupported.
    public init(bindKeyFile text: String) throws {
        func field(_ pattern: String) -> String? {
            guard let range = text.range(of: pattern, options: .regularExpression) else { return nil }
            let match = String(text[range])
            guard let open = match.firstIndex(where: { $0 == "\"" || $0 == " " || $0 == "\t" }) else { return nil }
            return match[open...].trimmingCharacters(in: CharacterSet(charactersIn: "\" \t;"))
        }
        guard let name = field(#"key\s+"[^"]+""#) else { throw TSIGError.badKeyFile("no key \"name\" { … } block") }
        guard let algorithm = field(#"algorithm\s+[A-Za-z0-9.-]+"#) else {
            throw TSIGError.badKeyFile("no algorithm")
        }
        guard algorithm.lowercased().trimmingCharacters(in: ["."]) == "hmac-sha256" else {
            throw TSIGError.badKeyFile("algorithm \(algorithm) is not supported (hmac-sha256 is)")
        }
        guard let secretText = field(#"secret\s+"[^"]*""#), let secret = Data(base64Encoded: secretText),
            !secret.isEmpty
        else { throw TSIGError.badKeyFile("no secret in base64") }
        do {
            self.init(name: try DNSName(parsing: name), secret: Array(secret))
        } catch {
            throw TSIGError.badKeyFile("the key name \(name) is not a DNS name")
        }
    }
}

/// What can go wrong with TSIG.
public enum TSIGError: Error, Hashable, Sendable, CustomStringConvertible {
    case badKeyFile(String)
    /// The server answered with a TSIG error in a signed answer (RFC 8945 §5.2.3: BADTIME, 18).
    case refusedByServer(code: UInt16)
    /// An answer said a TSIG error with no MAC (RFC 8945 §5.3.2: BADSIG, 16, and BADKEY, 17, come so), and no
    /// signed answer came: likely the server's word, though anyone on the path could have said it.
    case unsignedRefusal(code: UInt16)
    /// The answer carried no TSIG record, or one whose MAC does not verify with the key.
    case unsignedOrForgedAnswer

    public var description: String {
        switch self {
        case .badKeyFile(let why): "the TSIG key file cannot be used: \(why)"
        case .refusedByServer(let code), .unsignedRefusal(let code):
            switch code {
            case 16: "the DNS server refused the TSIG signature (BADSIG): the key's secret is not the server's"
            case 17: "the DNS server does not know the TSIG key's name (BADKEY)"
            case 18: "the DNS server refused the TSIG time (BADTIME): this host's clock is off"
            default: "the DNS server refused the TSIG signature (error \(code))"
            }
        case .unsignedOrForgedAnswer: "the DNS server's answer was not signed with the key"
        }
    }
}
