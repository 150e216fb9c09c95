import HuddleTransfers
import Testing

@Suite struct DownloadDirectoryTests {
    let userDirs = """
        # written by xdg-user-dirs-update
        XDG_DESKTOP_DIR="$HOME/Desktop"
        XDG_DOWNLOAD_DIR="$HOME/Telechargements"
        """

    @Test func theEnvironmentComesFirstThenUserDirsThenDownloads() {
        let fromEnvironment = DownloadDirectory.resolve(
            environment: ["XDG_DOWNLOAD_DIR": "/data/in"],
            home: "/home/ada",
            userDirs: userDirs
        )
        #expect(fromEnvironment == "/data/in")
        #expect(
            DownloadDirectory.resolve(environment: [:], home: "/home/ada", userDirs: userDirs)
                == "/home/ada/Telechargements"
        )
        #expect(DownloadDirectory.resolve(environment: [:], home: "/home/ada", userDirs: nil) == "/home/ada/Downloads")
    }

    @Test func homeItselfOrARelativePathIsNeverTheDefault() {
        let home = DownloadDirectory.resolve(
            environment: [:],
            home: "/home/ada",
            userDirs: "XDG_DOWNLOAD_DIR=\"$HOME/\"\n"
        )
        #expect(home == "/home/ada/Downloads")
        let relative = DownloadDirectory.resolve(
            environment: ["XDG_DOWNLOAD_DIR": "inbox"],
            home: "/home/ada",
            userDirs: nil
        )
        #expect(relative == "/home/ada/Downloads")
        #expect(
            DownloadDirectory.resolve(environment: ["XDG_DOWNLOAD_DIR": "$HOME"], home: "/home/ada", userDirs: nil)
                == "/home/ada/Downloads"
        )
    }
}
