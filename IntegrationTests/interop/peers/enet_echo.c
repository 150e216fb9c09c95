/* An ENet (Debian's libenet) echo between two test hosts, for bench_realtime.py: the same measurement as
 * `huddle-peer-bench udp-echo` and `client --mode ping`, one unreliable packet at a time awaiting its echo.
 *
 *   enet_echo serve PORT
 *   enet_echo ping HOST PORT COUNT SIZE     prints {"mode":"enet","p50_us":…,"p99_us":…,"count":…,"lost":…}
 *
 * Built by bench_realtime.py with: cc -O2 -o enet_echo enet_echo.c -lenet
 */
#include <enet/enet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int serve(int port) {
    ENetAddress address = {.host = ENET_HOST_ANY, .port = (enet_uint16)port};
    ENetHost *host = enet_host_create(&address, 8, 1, 0, 0);
    if (!host) return fprintf(stderr, "enet_echo: cannot listen on %d\n", port), 1;
    printf("{\"event\":\"ready\",\"port\":%d}\n", port);
    fflush(stdout);
    ENetEvent event;
    for (;;) {
        if (enet_host_service(host, &event, 1000) <= 0) continue;
        if (event.type == ENET_EVENT_TYPE_RECEIVE) {
            ENetPacket *echo = enet_packet_create(event.packet->data, event.packet->dataLength, 0);
            enet_peer_send(event.peer, 0, echo);
            enet_packet_destroy(event.packet);
            enet_host_flush(host);
        }
    }
}

static int ping(const char *name, int port, int count, int size) {
    ENetHost *host = enet_host_create(NULL, 1, 1, 0, 0);
    ENetAddress address = {.port = (enet_uint16)port};
    if (!host || enet_address_set_host(&address, name) != 0) return fprintf(stderr, "enet_echo: no host\n"), 1;
    ENetPeer *peer = enet_host_connect(host, &address, 1, 0);
    ENetEvent event;
    if (enet_host_service(host, &event, 5000) <= 0 || event.type != ENET_EVENT_TYPE_CONNECT)
        return fprintf(stderr, "enet_echo: could not connect\n"), 1;
    char *payload = calloc(1, size);
    double *samples = calloc(count, sizeof(double));
    int kept = 0, lost = 0;
    for (int index = 0; index < count; index++) {
        double start = now_us();
        enet_peer_send(peer, 0, enet_packet_create(payload, size, 0));
        enet_host_flush(host);
        int echoed = 0;
        while (!echoed && now_us() - start < 1e6) {
            int left = (int)((1e6 - (now_us() - start)) / 1000) + 1;
            if (enet_host_service(host, &event, left) <= 0) continue;
            if (event.type == ENET_EVENT_TYPE_RECEIVE) {
                enet_packet_destroy(event.packet);
                echoed = 1;
            }
        }
        if (!echoed) {
            lost++;
            continue;
        }
        if (index >= count / 10) samples[kept++] = now_us() - start;
    }
    qsort(samples, kept, sizeof(double), compare);
    double p50 = kept ? samples[(int)((kept - 1) * 0.5 + 0.5)] : -1;
    double p99 = kept ? samples[(int)((kept - 1) * 0.99 + 0.5)] : -1;
    printf("{\"mode\":\"enet\",\"size\":%d,\"count\":%d,\"lost\":%d,\"p50_us\":%.1f,\"p99_us\":%.1f}\n", size, kept,
           lost, p50, p99);
    enet_peer_disconnect_now(peer, 0);
    enet_host_destroy(host);
    return 0;
}

int main(int argc, char **argv) {
    if (enet_initialize() != 0) return fprintf(stderr, "enet_echo: enet_initialize failed\n"), 1;
    atexit(enet_deinitialize);
    if (argc == 3 && strcmp(argv[1], "serve") == 0) return serve(atoi(argv[2]));
    if (argc == 6 && strcmp(argv[1], "ping") == 0) return ping(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    fprintf(stderr, "usage: enet_echo serve PORT | enet_echo ping HOST PORT COUNT SIZE\n");
    return 64;
}
