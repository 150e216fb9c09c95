enum HuddleTransportPlaceholder {}
