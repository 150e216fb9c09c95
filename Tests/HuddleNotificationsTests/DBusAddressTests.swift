import HuddleNotifications
import Testing

@Suite struct DBusAddressTests {
    @Test func theFirstUnixAddressIsTaken() {
        let address = DBusAddress("tcp:host=127.0.0.1,port=1;unix:path=/run/user/1000/bus,guid=0a1b")
        #expect(address?.socket == .path("/run/user/1000/bus"))
    }

    @Test func escapesAreUndoneAndAbstractNamesKept() {
        #expect(DBusAddress("unix:path=/tmp/a%20b")?.socket == .path("/tmp/a b"))
        #expect(DBusAddress("unix:abstract=/tmp/dbus-x")?.socket == .abstract("/tmp/dbus-x"))
    }

    @Test func anAddressWithoutAUnixSocketIsNone() {
        #expect(DBusAddress("tcp:host=127.0.0.1,port=1") == nil)
        #expect(DBusAddress("unix:path=/tmp/a%2") == nil)
        #expect(DBusAddress("") == nil)
    }
}
