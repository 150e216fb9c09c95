import HuddleTransport
import Testing
