enum HuddlePlaceholder {}
