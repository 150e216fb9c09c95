import Testing

@testable import HuddleQR

/// ISO/IEC 18004:2015, 7.5.2 and Annex A: GF(256) modulo 0x11D and the generator polynomials.
@Suite("Reed–Solomon over GF(256)")
struct ReedSolomonTests {
    @Test func fieldPowersWrapAtThePrimitivePolynomial() {
        #expect(GaloisField256.powers[0] == 1)
        #expect(GaloisField256.powers[7] == 0x80)
        #expect(GaloisField256.powers[8] == 0x1D)  // x⁸ = x⁴ + x³ + x² + 1
        #expect(GaloisField256.powers[25] == 0x03)
        #expect(GaloisField256.powers[255] == 1)
        #expect(Set(GaloisField256.powers[0..<255]).count == 255)  // α generates every nonzero byte
        for value in 1...255 {
            #expect(Int(GaloisField256.powers[GaloisField256.logarithms[value]]) == value)
        }
    }

    @Test func multiplicationMatchesCarrylessProductReduced() {
        func slowProduct(_ a: UInt8, _ b: UInt8) -> UInt8 {
            var product = 0
            for bit in 0..<8 where (Int(b) >> bit) & 1 != 0 { product ^= Int(a) << bit }
            for bit in stride(from: 14, through: 8, by: -1) where (product >> bit) & 1 != 0 {
                product ^= 0x11D << (bit - 8)
            }
            return UInt8(product)
        }
        for a in stride(from: 0, through: 255, by: 7) {
            for b in stride(from: 0, through: 255, by: 3) {
                #expect(GaloisField256.multiply(UInt8(a), UInt8(b)) == slowProduct(UInt8(a), UInt8(b)))
            }
        }
    }

    /// Annex A lists the generator polynomials by the exponents of α of their coefficients; for 7 codewords:
    /// x⁷ + α⁸⁷x⁶ + α²²⁹x⁵ + α¹⁴⁶x⁴ + α¹⁴⁹x³ + α²³⁸x² + α¹⁰²x + α²¹.
    @Test func generatorPolynomialForSevenCodewords() {
        let exponents = [0, 87, 229, 146, 149, 238, 102, 21]
        #expect(ReedSolomonEncoder(eccCount: 7).generator == exponents.map { GaloisField256.powers[$0] })
    }

    /// The generator for 10 codewords, as in Annex A: α⁰, α²⁵¹, α⁶⁷, α⁴⁶, α⁶¹, α¹¹⁸, α⁷⁰, α⁶⁴, α⁹⁴, α³², α⁴⁵.
    @Test func generatorPolynomialForTenCodewords() {
        let exponents = [0, 251, 67, 46, 61, 118, 70, 64, 94, 32, 45]
        #expect(ReedSolomonEncoder(eccCount: 10).generator == exponents.map { GaloisField256.powers[$0] })
    }

    /// The standard's worked example (Annex I): "01234567" in numeric mode, version 1-M.
    @Test func isoWorkedExampleVersion1M() {
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        let ecc: [UInt8] = [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]
        #expect(ReedSolomonEncoder(eccCount: 10).eccCodewords(for: data) == ecc)
    }

    /// "HELLO WORLD" in alphanumeric mode, version 1-Q: 13 data codewords, 13 error correction codewords.
    @Test func helloWorldVersion1Q() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236]
        let ecc: [UInt8] = [168, 72, 22, 82, 217, 54, 156, 0, 46, 15, 180, 122, 16]
        #expect(ReedSolomonEncoder(eccCount: 13).eccCodewords(for: data) == ecc)
    }

    /// A codeword (data followed by its error correction codewords) is a multiple of the generator, so it
    /// vanishes at every root α⁰ … α^(n−1).
    @Test(arguments: [7, 10, 13, 17, 22, 26, 30]) func codewordsVanishAtTheGeneratorRoots(eccCount: Int) {
        let data = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let codeword = data + ReedSolomonEncoder(eccCount: eccCount).eccCodewords(for: data)
        for exponent in 0..<eccCount {
            let root = GaloisField256.powers[exponent]
            let value = codeword.reduce(UInt8(0)) { GaloisField256.multiply($0, root) ^ $1 }
            #expect(value == 0, "at α^\(exponent)")
        }
    }
}
