// Avahi's client library: service browsing for the launcher (mDNS/DNS-SD through avahi-daemon).
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
