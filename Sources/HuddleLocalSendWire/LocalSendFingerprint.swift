import Crypto
import HuddleWire

/// LocalSend's name for a certificate: SHA-256 of its DER encoding in uppercase hex (docs/localsend.md,
/// "Fingerprints"). Sent uppercase; compared without regard to case, since some implementations send lowercase.
public enum LocalSendFingerprint {
    public static func of(certificateDER: [UInt8]) -> String {
        Hex.encode(SHA256.hash(data: certificateDER), uppercase: true)
    }

    public static func matches(_ lhs: String, _ rhs: String) -> Bool {
        lhs.count == rhs.count && lhs.uppercased() == rhs.uppercased()
    }

    /// True when `text` could be a certificate fingerprint (64 ASCII hex digits, either case).
    public static func isCertificateFingerprint(_ text: String) -> Bool {
        text.utf8.count == 64 && text.allSatisfy { $0.isASCII && $0.isHexDigit }
    }
}
