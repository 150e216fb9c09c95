#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `strerror`, kept in one place so callers need no C import.
func strerrorText(_ number: Int32) -> UnsafeMutablePointer<CChar> {
    strerror(number)
}
