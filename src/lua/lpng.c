/*
 * lpng.c -- the smallest PNG writer astar.debug.png needs: 8-bit RGB, no filter, the zlib
 * stream made of stored (uncompressed) deflate blocks. Big, but any decoder reads it, and
 * it takes no library: the pictures are for looking at a map, not for shipping.
 */
#include "lpng.h"

#include <stdint.h>
#include <string.h>

#include "lcompat.h"

static uint32_t crc_table[256];

static void crc_init(void) {
    if (crc_table[1]) return;
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A chunk: length, type, data, CRC of type and data. */
static void add_chunk(luaL_Buffer *b, const char *type, const unsigned char *data, size_t n) {
    unsigned char word[4];
    put32(word, (uint32_t)n);
    luaL_addlstring(b, (const char *)word, 4);
    luaL_addlstring(b, type, 4);
    if (n) luaL_addlstring(b, (const char *)data, n);
    uint32_t crc = crc_update(0xFFFFFFFFu, (const unsigned char *)type, 4);
    crc = crc_update(crc, data, n) ^ 0xFFFFFFFFu;
    put32(word, crc);
    luaL_addlstring(b, (const char *)word, 4);
}

/* astar.core.png_encode(width, height, rgb) -> the bytes of a PNG file; rgb holds
 * width * height * 3 bytes, row by row from the top. */
int astar_lua_png_encode(lua_State *L) {
    lua_Integer w = luaL_checkinteger(L, 1), h = luaL_checkinteger(L, 2);
    size_t len;
    const unsigned char *rgb = (const unsigned char *)luaL_checklstring(L, 3, &len);
    if (w < 1 || h < 1 || w > 65536 || h > 65536) return luaL_argerror(L, 1, "size out of range 1..65536");
    if (len != (size_t)w * (size_t)h * 3) return luaL_argerror(L, 3, "not width * height * 3 bytes");
    crc_init();
    size_t row = (size_t)w * 3 + 1; /* a filter byte (0: none) before each row */
    size_t raw = row * (size_t)h;
    size_t blocks = raw / 65535 + 1;
    size_t zlen = 2 + raw + blocks * 5 + 4;
    unsigned char *z = astar_newuserdata_plain(L, zlen); /* freed by the collector, even on error */
    unsigned char *p = z;
    *p++ = 0x78; /* zlib header: deflate, 32 K window, no dictionary, check bits */
    *p++ = 0x01;
    uint32_t a = 1, bsum = 0; /* Adler-32 of the raw bytes */
    size_t done = 0, in_row = 0, y = 0;
    while (done < raw) {
        size_t n = raw - done < 65535 ? raw - done : 65535;
        *p++ = done + n == raw ? 1 : 0; /* BFINAL, BTYPE = stored */
        *p++ = (unsigned char)(n & 0xFF);
        *p++ = (unsigned char)(n >> 8);
        *p++ = (unsigned char)(~n & 0xFF);
        *p++ = (unsigned char)((~n >> 8) & 0xFF);
        for (size_t i = 0; i < n; i++) {
            unsigned char byte = in_row == 0 ? 0 : rgb[y * (size_t)w * 3 + in_row - 1];
            *p++ = byte;
            a = (a + byte) % 65521;
            bsum = (bsum + a) % 65521;
            if (++in_row == row) {
                in_row = 0;
                y++;
            }
        }
        done += n;
    }
    put32(p, (bsum << 16) | a);
    p += 4;

    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, "\x89PNG\r\n\x1a\n", 8);
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)w);
    put32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 2;  /* truecolour */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering (each row says none) */
    ihdr[12] = 0; /* no interlace */
    add_chunk(&b, "IHDR", ihdr, sizeof ihdr);
    add_chunk(&b, "IDAT", z, (size_t)(p - z));
    add_chunk(&b, "IEND", NULL, 0);
    luaL_pushresult(&b);
    return 1;
}
